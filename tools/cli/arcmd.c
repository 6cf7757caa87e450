// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * vfabric ar: the adaptive-routing tables the plugin would program for a
 * routing (any LFT dump, ours or OpenSM's), their size against the
 * switches' capacities, and the credit-loop check over every alternate.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "routing/ar.h"
#include "routing/lftdump.h"
#include "routing/lidkeep.h"
#include "tools/cli/arcmd.h"
#include "tools/cli/livefabric.h"

#define EXIT_USAGE 2

static void summary(FILE *out, const struct vf_ar_tables *ar, bool safe,
		    const char *cycle)
{
	unsigned with = 0, groups = 0, most = 0;
	unsigned long lids = 0, over = 0;

	for (uint32_t s = 0; s < ar->num_switches; s++) {
		const struct vf_ar_switch *sw = &ar->sw[s];

		with += sw->num_groups > 0;
		groups += sw->num_groups;
		most = sw->num_groups > most ? sw->num_groups : most;
		lids += sw->lids_grouped;
		over += sw->lids_over_cap;
	}
	fprintf(out, "ar switches   %u of %u with port groups; %u groups (at most %u on a switch)\n",
		with, ar->num_switches, groups, most);
	fprintf(out, "ar lids       %lu switch/LID entries with a group, %lu left static for capacity\n",
		lids, over);
	fprintf(out, "ar safety     %s\n", safe ? "no credit loop over any alternate" : cycle);
}

int vf_cmd_ar(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "topo", required_argument, NULL, 't' },
		{ "lfts", required_argument, NULL, 'l' },
		{ "coarse", no_argument, NULL, 'c' },
		{ "groups", required_argument, NULL, 'g' },
		{ "lmc", required_argument, NULL, 'm' },
		{ "output", required_argument, NULL, 'o' },
		{ 0 }
	};
	const char *topo = NULL, *lfts = NULL, *outp = NULL;
	struct vf_ar_config cfg;
	struct vf_ar_caps *caps = NULL;
	struct vf_ar_tables ar = { 0 };
	struct vf_lfts t = { 0 };
	struct vf_err err = { "" };
	struct vf_fabric *f = NULL;
	unsigned group_cap = VF_AR_MAX_GROUPS, lmc = 0;
	char cycle[512];
	FILE *out = stdout;
	bool safe;
	int ch, rc = EXIT_USAGE;

	vf_ar_config_default(&cfg);
	cfg.enable = cfg.fine_grained = true;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "t:l:cg:m:o:", opts, NULL)) != -1) {
		switch (ch) {
		case 't': topo = optarg; break;
		case 'l': lfts = optarg; break;
		case 'o': outp = optarg; break;
		case 'c': cfg.fine_grained = false; break;
		case 'g':
			group_cap = (unsigned)strtoul(optarg, NULL, 0);
			if (!group_cap || group_cap > VF_AR_MAX_GROUPS) {
				fprintf(stderr, "vfabric: --groups takes 1 to %u\n",
					VF_AR_MAX_GROUPS);
				return EXIT_USAGE;
			}
			break;
		case 'm':
			/* as route --lmc: the LIDs a NET without them gets */
			lmc = (unsigned)strtoul(optarg, NULL, 10);
			if (lmc > 7) {
				fputs("vfabric: --lmc takes 0 to 7\n", stderr);
				return EXIT_USAGE;
			}
			break;
		default:
			return EXIT_USAGE;
		}
	}
	if (!topo || !lfts || optind != argc) {
		fprintf(stderr, "usage: vfabric ar --topo NET --lfts DUMP [--lmc N] [--coarse] [--groups N] [-o FILE]\n");
		return EXIT_USAGE;
	}
	f = vf_cli_routed(topo, lfts, lmc, &t, &err);
	if (!f) {
		fprintf(stderr, "vfabric: %s\n", err.msg);
		goto out;
	}
	caps = calloc(f->num_switches + 1, sizeof(*caps));
	for (uint32_t s = 0; caps && s < f->num_switches; s++)
		caps[s] = (struct vf_ar_caps){ group_cap, (unsigned)t.max_lid + 1 };
	if (!caps || vf_ar_compute(f, &t, &cfg, caps, &ar)) {
		fprintf(stderr, "vfabric: out of memory\n");
		goto out;
	}
	if (outp && !(out = fopen(outp, "w"))) {
		perror(outp);
		goto out;
	}
	safe = vf_ar_check(f, &t, &ar, cycle, sizeof(cycle));
	vf_ar_dump(out, f, &ar);
	summary(outp ? stdout : stderr, &ar, safe, cycle);
	rc = safe ? 0 : 1;
out:
	if (out && out != stdout)
		fclose(out);
	vf_ar_free(&ar);
	free(caps);
	vf_lfts_free(&t);
	vf_fabric_destroy(f);
	return rc;
}
