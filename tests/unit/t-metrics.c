// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * plugin/metrics.c without OpenSM: the text it formats (what is left out
 * before it is known, label values escaped, counters from any thread) and
 * the file it writes (a failure logged once, then "written again").  The
 * format itself is checked by an independent parser in
 * tests/integration/t-metrics.py.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plugin/metrics.h"
#include "common/log.h"
#include "taptest.h"

static unsigned errors, infos;
static char last[512];

static void capture(void *ctx, enum vf_log_level level, const char *msg)
{
	(void)ctx;
	errors += level == VF_LOG_ERROR;
	infos += level == VF_LOG_INFO;
	snprintf(last, sizeof(last), "%s", msg);
}

static bool has_line(const char *text, const char *line)
{
	size_t n = strlen(line);

	for (const char *at = text; (at = strstr(at, line)); at++)
		if ((at == text || at[-1] == '\n') && at[n] == '\n')
			return true;
	return false;
}

int main(void)
{
	char dir[] = "/tmp/t-metrics-XXXXXX", path[128], sub[96], *text;
	struct vf_route_report r = { .ca_pairs = 12, .ca_unreachable = 1,
				     .load_max = 7, .load_avg = 2.5,
				     .load_max_over_avg = 2.8 };
	struct vf_metrics *m;

	vf_log_set_sink(capture, NULL);
	OK(!vf_metrics_create(NULL), "no path: off");
	vf_metrics_sa_answered(NULL, VF_MSA_PATH_RECORD);
	OK(vf_metrics_write(NULL) == 0, "off: every call does nothing");
	if (!mkdtemp(dir))
		return 1;
	snprintf(sub, sizeof(sub), "%s/sub", dir);
	snprintf(path, sizeof(path), "%.80s/vf.prom", sub);
	m = vf_metrics_create(path);
	OK(m, "created");

	text = vf_metrics_format(m);
	OK(text && has_line(text, "opensm_vfabric_sweeps_total 0") &&
	   !strstr(text, "route_check") && !strstr(text, "pkey_ports") &&
	   !strstr(text, "routing_engine_info") &&
	   has_line(text, "opensm_vfabric_config_source{source=\"opensm\"} 1"),
	   "before any sweep: counters at 0, nothing not yet known");
	free(text);

	vf_metrics_sweep_start(m);
	vf_metrics_routing(m, "we\"ird\\en\ngine");
	vf_metrics_route_check(m, &r);
	vf_metrics_pkeys(m, 8, 1);
	vf_metrics_config_error(m);
	vf_metrics_sa_refused(m, VF_MSR_BUSY);
	vf_metrics_sa_refused(m, VF_MSR_BUSY);
	vf_metrics_subnet_up(m);
	text = vf_metrics_format(m);
	OK(text && has_line(text,
	   "opensm_vfabric_routing_engine_info{engine=\"we\\\"ird\\\\en\\ngine\"} 1"),
	   "a label value's quote, backslash and newline escaped");
	OK(text && has_line(text, "opensm_vfabric_sweeps_total 1") &&
	   has_line(text, "opensm_vfabric_route_check_unreachable_ca_pairs 1") &&
	   has_line(text, "opensm_vfabric_link_load_max_over_avg_ratio 2.800000") &&
	   has_line(text, "opensm_vfabric_pkey_ports_mismatched 1") &&
	   has_line(text, "opensm_vfabric_config_errors_total 1") &&
	   has_line(text, "opensm_vfabric_sa_requests_refused_total{reason=\"busy\"} 2"),
	   "a sweep's figures and the counters");
	free(text);

	vf_metrics_sweep_start(m);
	vf_metrics_routing(m, "minhop");
	vf_metrics_subnet_up(m);
	text = vf_metrics_format(m);
	OK(text && !strstr(text, "route_check") && !strstr(text, "pkey_ports") &&
	   has_line(text, "opensm_vfabric_routing_engine_info{engine=\"minhop\"} 1"),
	   "OpenSM's engine routed, no plan: no stale check or P_Key figures");
	OK(vf_metrics_em(m, 1, 2, 0, 0) && !vf_metrics_em(m, 1, 2, 0, 0) &&
	   vf_metrics_em(m, 0, 3, 0, 0), "an EM pass says when a figure moved");
	free(text);

	errors = infos = 0;
	OK(vf_metrics_write(m) < 0 && vf_metrics_write(m) < 0,
	   "a missing directory: the writes fail");
	OK(errors == 1 && strstr(last, "ERR VF0120") && strstr(last, path),
	   "logged once, naming the file");
	OK(mkdir(sub, 0755) == 0 && vf_metrics_write(m) == 0 && infos == 1 &&
	   strstr(last, "written again"), "the directory made: written again");
	snprintf(sub, sizeof(sub), "%.88s.tmp", path);
	OK(access(path, R_OK) == 0 && access(sub, F_OK) != 0,
	   "the file is there, its .tmp is not");
	unlink(path);
	snprintf(sub, sizeof(sub), "%s/sub", dir);
	rmdir(sub);
	rmdir(dir);
	vf_metrics_destroy(m);
	vf_log_set_sink(NULL, NULL);
	return tap_done();
}
