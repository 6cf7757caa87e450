// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * The text form of AR tables (routing/ar.h): what `vfabric ar` writes,
 * the flow simulator and the tests read, and an administrator can diff.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ar.h"

static void dump_group(FILE *out, unsigned i, const struct vf_ar_mask *m)
{
	bool first = true;

	fprintf(out, "group %u ", i);
	for (unsigned p = 1; p <= 64 * VF_AR_MASK_WORDS; p++)
		if (vf_ar_mask_has(m, p)) {
			fprintf(out, "%s%u", first ? "" : ",", p);
			first = false;
		}
	fputc('\n', out);
}

int vf_ar_dump_switch(FILE *out, uint64_t guid, const struct vf_ar_switch *sw,
		      uint16_t max_lid)
{
	fprintf(out, "switch 0x%016" PRIx64 " groups %u/%u lids %u/%u\n",
		guid, sw->num_groups, sw->group_cap, sw->lids_grouped,
		sw->lid_cap);
	for (unsigned i = 0; i < sw->num_groups; i++)
		dump_group(out, i, &sw->groups[i]);
	for (unsigned lid = 1; lid <= max_lid;) {
		unsigned end = lid;
		uint8_t g = sw->lid_group[lid];

		while (end < max_lid && sw->lid_group[end + 1] == g)
			end++;
		if (g != VF_AR_NO_GROUP)
			fprintf(out, "lids %u-%u %u\n", lid, end, g);
		lid = end + 1;
	}
	return ferror(out) ? -EIO : 0;
}

int vf_ar_dump(FILE *out, const struct vf_fabric *f,
	       const struct vf_ar_tables *ar)
{
	for (uint32_t s = 0; s < ar->num_switches; s++)
		vf_ar_dump_switch(out, f->nodes[f->switches[s]].guid,
				  &ar->sw[s], ar->max_lid);
	return ferror(out) ? -EIO : 0;
}

/* One "group I P,P,..." line into sw; false when malformed. */
static bool load_group(struct vf_ar_switch *sw, char *rest)
{
	struct vf_ar_mask m = { { 0 } };
	char *save = NULL, *tok;
	unsigned i;
	int used;

	if (sscanf(rest, "%u %n", &i, &used) != 1 || i >= sw->group_cap ||
	    i != sw->num_groups)
		return false;
	for (tok = strtok_r(rest + used, ",\n", &save); tok;
	     tok = strtok_r(NULL, ",\n", &save)) {
		unsigned long p = strtoul(tok, NULL, 10);

		if (!p || p > 64 * VF_AR_MASK_WORDS)
			return false;
		m.w[(p - 1) / 64] |= 1ull << ((p - 1) % 64);
	}
	sw->groups[sw->num_groups++] = m;
	return true;
}

static bool load_lids(struct vf_ar_switch *sw, const char *rest,
		      uint16_t max_lid)
{
	unsigned a, b, g;

	if (sscanf(rest, "%u-%u %u", &a, &b, &g) != 3 || !a || a > b ||
	    b > max_lid || g >= sw->num_groups)
		return false;
	for (unsigned lid = a; lid <= b; lid++)
		sw->lid_group[lid] = (uint8_t)g;
	sw->lids_grouped += b - a + 1;
	return true;
}

int vf_ar_load(const char *path, const struct vf_fabric *f,
	       struct vf_ar_tables *ar, struct vf_err *err)
{
	FILE *in = fopen(path, "r");
	struct vf_ar_switch *sw = NULL;
	char line[2048];
	unsigned n = 0;
	int rc = 0;

	memset(ar, 0, sizeof(*ar));
	if (!in)
		return vf_err_set(err, "%s: %s", path, strerror(errno));
	ar->num_switches = f->num_switches;
	ar->max_lid = f->max_lid;
	ar->sw = calloc(f->num_switches + 1, sizeof(*ar->sw));
	rc = ar->sw ? 0 : -ENOMEM;
	for (uint32_t s = 0; !rc && s < f->num_switches; s++) {
		ar->sw[s].lid_group = malloc((size_t)f->max_lid + 1);
		ar->sw[s].groups = calloc(VF_AR_MAX_GROUPS + 1,
					  sizeof(*ar->sw[s].groups));
		if (!ar->sw[s].lid_group || !ar->sw[s].groups) {
			rc = vf_err_set(err, "out of memory");
			break;
		}
		memset(ar->sw[s].lid_group, VF_AR_NO_GROUP,
		       (size_t)f->max_lid + 1);
	}
	while (!rc && fgets(line, sizeof(line), in)) {
		uint64_t guid;
		unsigned top, cap, lids, lcap;
		uint32_t node;

		n++;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (sscanf(line, "switch 0x%" SCNx64 " groups %u/%u lids %u/%u",
			   &guid, &top, &cap, &lids, &lcap) == 5) {
			node = vf_fabric_find_guid(f, guid);
			if (node == VF_NONE || f->nodes[node].sw == VF_NONE) {
				rc = vf_err_set(err, "%s:%u: no switch 0x%016" PRIx64 " in the fabric",
						path, n, guid);
				break;
			}
			sw = &ar->sw[f->nodes[node].sw];
			sw->group_cap = cap > VF_AR_MAX_GROUPS ?
					VF_AR_MAX_GROUPS : cap;
			sw->lid_cap = lcap;
			continue;
		}
		if (!sw || !((!strncmp(line, "group ", 6) &&
			      load_group(sw, line + 6)) ||
			     (!strncmp(line, "lids ", 5) &&
			      load_lids(sw, line + 5, ar->max_lid))))
			rc = vf_err_set(err, "%s:%u: not an AR table line: %.60s",
					path, n, line);
	}
	fclose(in);
	if (rc)
		vf_ar_free(ar);
	return rc;
}
