/* The provenance block of mmsim report: everything the results file records (docs/results.md,
 * attributes), the axes' first 12 values, the configuration's full text. */
#include <inttypes.h>
#include <stdio.h>

#include "report.h"

void rep_provenance(rep_out *o, const mm_results_info *in, const char *path)
{
    const mm_results_meta *m = &in->meta;
    char h[32];
    rep_printf(o, "<h2>Provenance</h2>\n<dl>\n<dt>results file</dt><dd>");
    rep_esc(o, path);
    rep_printf(o, "</dd>\n<dt>combinations</dt><dd>%" PRId64 "</dd>\n<dt>axes</dt><dd>",
               in->n_rows);
    for (int a = 0; a < in->n_axes; a++) {
        char v[256];
        rep_printf(o, "%s", a ? "<br/>" : "");
        rep_esc(o, in->axes[a].key);
        rep_printf(o, " (%" PRId32 "): ", in->axes[a].n);
        for (int32_t k = 0; k < in->axes[a].n && k < 12; k++) {
            mm_results_axis_format(&in->axes[a], k, v, sizeof v);
            rep_printf(o, "%s", k ? ", " : "");
            rep_esc(o, v);
        }
        if (in->axes[a].n > 12) rep_printf(o, ", ...");
    }
    rep_printf(o, "</dd>\n<dt>engine</dt><dd>");
    rep_esc(o, m->engine[0] ? m->engine : "(unknown)");
    rep_printf(o, ", %" PRId32 " worker%s</dd>\n<dt>mmsim version</dt><dd>", m->workers,
               m->workers == 1 ? "" : "s");
    rep_esc(o, in->mmsim_version);
    rep_printf(o,
               "</dd>\n<dt>wall time</dt><dd>%.3f s</dd>\n<dt>throughput</dt><dd>%.6g "
               "combinations/s, %.6g updates/s</dd>\n<dt>seed</dt><dd>%" PRIu64
               "</dd>\n<dt>content hash</dt><dd>%016" PRIx64 "</dd>\n<dt>markouts</dt><dd>",
               m->wall_s, m->combos_per_s, m->updates_per_s, m->seed, in->content_hash);
    for (int k = 0; k < MM_MARKOUTS; k++) {
        mm_results_horizon_name(m->markout_ns[k], h, sizeof h);
        rep_printf(o, "%s%s", k ? " " : "", h);
    }
    rep_printf(o, "</dd>\n<dt>objective</dt><dd>");
    rep_esc(o, m->objective);
    rep_printf(o, "</dd>\n<dt>inputs</dt><dd>");
    for (int32_t i = 0; i < m->n_inputs; i++) {
        rep_printf(o, "%s", i ? "<br/>" : "");
        rep_esc(o, m->input_paths[i]);
        if (m->input_symbols[i]) {
            rep_printf(o, "#");
            rep_esc(o, m->input_symbols[i]);
        }
        rep_printf(o, " (fingerprint %016" PRIx64 ")", m->input_fingerprints[i]);
    }
    if (m->n_inputs == 0) rep_printf(o, "(none recorded)");
    rep_printf(o, "</dd>\n</dl>\n<h3>Configuration</h3>\n<pre>");
    rep_esc(o, m->config_text && m->config_text[0] ? m->config_text : "(none recorded)");
    rep_printf(o, "</pre>\n");
}
