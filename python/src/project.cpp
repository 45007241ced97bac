// strata.project: projection onto a reference PCA (genomics::project), as numpy arrays.
#include <nanobind/stl/string.h>

#include "common.hpp"
#include "strata/genomics/project.hpp"

namespace strata::python {

void bind_project(nb::module_& m) {
  // Returns (projection, scores, allele_ct, named_dosage_sum, report dict).
  m.def("project", [](const PyContext& pc, const Genotypes& g, const std::string& reference, int64_t k,
                      const std::string& correction, bool drop_ambiguous) {
    genomics::ProjectOptions o;
    o.reference = reference;
    o.k = k;
    o.correction = take(genomics::parse_project_correction(correction));
    o.drop_ambiguous = drop_ambiguous;
    check(genomics::validate_project_options(o));
    genomics::ProjectResult r = released(pc, [&]() -> Result<genomics::ProjectResult> {
      STRATA_ASSIGN_OR_RETURN(genomics::ProjectReference ref, genomics::read_project_reference(reference));
      return genomics::project(pc.ctx(), g.view, ref, o);
    });
    Summary s;
    const genomics::ProjectMatchCounts& c = r.match;
    s.set("k", r.k).set("correction", genomics::project_correction_name(o.correction));
    s.set("matched", c.matched).set("matched_by_position", c.by_position).set("swapped", c.swapped);
    s.set("strand_flipped", c.strand_flipped).set("ambiguous_used", c.ambiguous);
    s.set("ambiguous_dropped", c.ambiguous_dropped).set("allele_mismatch", c.allele_mismatch);
    s.set("duplicate", c.duplicate).set("missing", c.missing);
    std::vector<double> ct(r.allele_ct.begin(), r.allele_ct.end());
    const int64_t n = r.scores.rows;
    return nb::make_tuple(column_major_array(std::move(r.projection.data), n, r.k),
                          column_major_array(std::move(r.scores.data), n, r.k), vector_array(std::move(ct)),
                          vector_array(std::move(r.named_dosage_sum)), summary_dict(s));
  }, nb::arg("ctx"), nb::arg("genotypes"), nb::arg("reference"), nb::arg("k"), nb::arg("correction"),
     nb::arg("drop_ambiguous"));
}

}  // namespace strata::python
