#!/usr/bin/env bash
# InstallExample: install this build into a temporary prefix, build examples/cpp against it as
# a downstream project would (find_package(strata CONFIG)), and check pca_example prints the
# bytes `strata pca` writes to PREFIX.eigenval.
#   install_example.sh BUILD_DIR SOURCE_DIR STRATA_CLI CMAKE
set -euo pipefail
build_dir=$1 source_dir=$2 cli=$3 cmake=${4:-cmake}

if ! command -v "$cmake" >/dev/null 2>&1; then
  echo "SKIPPED: cmake not found ($cmake)"
  exit 77
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/strata-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
fail() { echo "FAIL: $*" >&2; exit 1; }

"$cmake" --install "$build_dir" --prefix "$prefix" >"$tmp/install.log" || { cat "$tmp/install.log"; fail "install"; }
pkg=$(dirname "$(find "$prefix" -name strataConfig.cmake -print -quit)")
[[ -f $pkg/strataConfig.cmake && -f $pkg/strataConfigVersion.cmake && -f $pkg/strataTargets.cmake ]] \
  || fail "CMake package files missing under $prefix"
[[ -f $prefix/include/strata/core/config.hpp ]] || fail "generated config.hpp not installed"
# libcurl is dlopen'ed at run time, so a consumer links no CURL target.
if grep -l 'CURL::' "$pkg"/strata*.cmake; then fail "installed package names a CURL target"; fi

# Installed headers are the public API: no third-party JSON, and the umbrella names them all.
if grep -rlE '#\s*include\s*[<"]nlohmann/' "$prefix/include"; then fail "installed headers above include nlohmann"; fi
umbrella=$prefix/include/strata/strata.hpp
[[ -f $umbrella ]] || fail "strata/strata.hpp not installed"
while read -r h; do
  rel=${h#"$prefix/include/"}
  [[ $rel == strata/strata.hpp ]] && continue
  grep -qF "#include \"$rel\"" "$umbrella" || fail "strata/strata.hpp does not include $rel"
done < <(find "$prefix/include/strata" -name '*.hpp')

# The example as its own project, under $tmp so ccache (paths relative to $tmp) hits across runs.
cp -r "$source_dir/examples/cpp" "$tmp/src"
args=(-S "$tmp/src" -B "$tmp/build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix"
      -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)
if command -v ninja >/dev/null 2>&1; then args+=(-G Ninja); fi
if command -v ccache >/dev/null 2>&1; then
  args+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  export CCACHE_BASEDIR=$tmp
fi
"$cmake" "${args[@]}" >"$tmp/configure.log" 2>&1 || { cat "$tmp/configure.log"; fail "configure examples/cpp"; }
found=$(sed -n 's/^strata_DIR:PATH=//p' "$tmp/build/CMakeCache.txt")
[[ $found == "$pkg" ]] || fail "find_package found strata in '$found', not in $pkg"
"$cmake" --build "$tmp/build" >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; fail "build examples/cpp"; }

"$cli" simulate --samples 300 --variants 2000 --out "$tmp/sim" --format bed >/dev/null
"$cli" pca "$tmp/sim" -k 5 --out "$tmp/p" >/dev/null
"$tmp/build/pca_example" "$tmp/sim" 5 >"$tmp/example.eigenval"
[[ $(wc -l <"$tmp/p.eigenval") -eq 5 ]] || fail "strata pca wrote $(wc -l <"$tmp/p.eigenval") eigenvalues, not 5"
cmp "$tmp/example.eigenval" "$tmp/p.eigenval" || {
  paste "$tmp/example.eigenval" "$tmp/p.eigenval" >&2
  fail "pca_example output differs from strata pca's .eigenval"
}
echo "InstallExample: ok ($(tr '\n' ' ' <"$tmp/example.eigenval"))"
