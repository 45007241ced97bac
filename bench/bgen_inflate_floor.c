// The decompression floor of a BGEN file: inflate every variant block (layout 2, zlib) with
// libdeflate, the fastest inflate packaged here, on T threads, and print wall and CPU seconds.
// No reader can hand out the file's genotypes faster than this; formats_bench.py gwas prints
// the peer's time over it as the largest ratio any BGEN reader could reach on this machine.
//
//   cc -O2 bench/bgen_inflate_floor.c -ldeflate -lpthread -o floor && ./floor X.bgen 2
#include <fcntl.h>
#include <libdeflate.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>

typedef struct {
  const uint8_t* data;
  uint32_t compressed, inflated;
} Block;

static Block* blocks;
static long num_blocks;
static int num_threads;
static int failed;

static uint32_t u32(const uint8_t* p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint16_t u16(const uint8_t* p) { uint16_t v; memcpy(&v, p, 2); return v; }

static void* inflate_share(void* arg) {
  const long t = (long)arg;
  struct libdeflate_decompressor* d = libdeflate_alloc_decompressor();
  size_t cap = 1 << 20;
  uint8_t* out = malloc(cap);
  for (long i = t; i < num_blocks; i += num_threads) {
    if (blocks[i].inflated > cap) out = realloc(out, cap = blocks[i].inflated);
    size_t got = 0;
    if (libdeflate_zlib_decompress(d, blocks[i].data, blocks[i].compressed, out, blocks[i].inflated, &got) != 0) {
      fprintf(stderr, "variant block %ld does not inflate\n", i);
      failed = 1;
      break;
    }
  }
  free(out);
  libdeflate_free_decompressor(d);
  return NULL;
}

int main(int argc, char** argv) {
  if (argc != 3) { fprintf(stderr, "usage: %s FILE.bgen THREADS\n", argv[0]); return 2; }
  const int fd = open(argv[1], O_RDONLY);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0) { perror(argv[1]); return 1; }
  const uint8_t* m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  num_threads = atoi(argv[2]);
  if (m == MAP_FAILED || num_threads < 1 || num_threads > 256) { fprintf(stderr, "bad file or threads\n"); return 1; }
  const uint32_t flags = u32(m + 4 + u32(m + 4) - 4);
  if ((flags & 3) != 1 || ((flags >> 2) & 15) != 2) { fprintf(stderr, "%s: not layout 2 with zlib\n", argv[1]); return 1; }
  num_blocks = u32(m + 8);
  blocks = malloc(sizeof(Block) * (size_t)num_blocks);
  const uint8_t* p = m + 4 + u32(m);
  for (long i = 0; i < num_blocks; ++i) {
    for (int s = 0; s < 3; ++s) p += 2 + u16(p);  // variant ID, rsid, chromosome
    p += 4;                                        // position
    const int alleles = u16(p);
    p += 2;
    for (int k = 0; k < alleles; ++k) p += 4 + u32(p);
    blocks[i] = (Block){p + 8, u32(p) - 4, u32(p + 4)};
    p += 4 + u32(p);
  }
  volatile uint8_t touch = 0;  // from the page cache, as the readers see it after the first run
  for (off_t i = 0; i < st.st_size; i += 4096) touch += m[i];
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  const clock_t c0 = clock();
  pthread_t th[256];
  for (long t = 0; t < num_threads; ++t) pthread_create(&th[t], NULL, inflate_share, (void*)t);
  for (int t = 0; t < num_threads; ++t) pthread_join(th[t], NULL);
  clock_gettime(CLOCK_MONOTONIC, &b);
  printf("variants %ld threads %d wall %.3f s cpu %.3f s\n", num_blocks, num_threads,
         (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9, (double)(clock() - c0) / CLOCKS_PER_SEC);
  return failed;
}
