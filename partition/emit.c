// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
#define _GNU_SOURCE	/* open_memstream */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "partition/emit.h"
#include "partition/filewrite.h"

static const char *const membership_word[] = {
	[VF_MEMBER_LIMITED] = "limited",
	[VF_MEMBER_FULL] = "full",
	[VF_MEMBER_BOTH] = "both",
};

/*
 * OpenSM's partition names end at '=', ':', ',' or blank: anything but
 * letters, digits, '_', '-' and '.' becomes '_' (the name is only shown
 * in OpenSM's log).
 */
static void put_name(FILE *out, const char *name)
{
	for (const char *s = name; *s; s++)
		fputc(isalnum((unsigned char)*s) || *s == '_' || *s == '-' ||
		      *s == '.' ? *s : '_', out);
}

/*
 * A partition without IPoIB gets its IPoIB broadcast group anyway, made so
 * that no port can join it (seed 002): OpenSM refuses a join from a port
 * slower than the group's rate, and 600 Gb/s (IB rate code 22) is more
 * than any port has.  IPoIB cannot come up there, and no host can create
 * the group with usable parameters, as it already exists.  OpenSM takes an
 * IP group's rate and MTU from its partition's flags (which have no other
 * use without IPoIB), and fills the P_Key into the MGID.
 */
#define BLOCK_FLAGS ", rate=22, mtu=5"
#define BLOCK_MGID "mgid=ff12:401b::ffff:ffff"

/* The members whose indx0 flag is `indx0`, comma-separated. */
static unsigned put_members(FILE *out, const struct vf_partition *part,
			    const struct vf_fabric *f, bool indx0)
{
	unsigned n = 0;

	for (unsigned i = 0; i < part->num_members; i++)
		if (part->members[i].indx0 == indx0)
			fprintf(out, "%s\n\t0x%016llx=%s", n++ ? "," : "",
				(unsigned long long)
				f->ports[part->members[i].port].guid,
				membership_word[part->members[i].membership]);
	return n;
}

static unsigned count_indx0(const struct vf_partition *part)
{
	unsigned n = 0;

	for (unsigned i = 0; i < part->num_members; i++)
		n += part->members[i].indx0;
	return n;
}

/*
 * The ports that hold this P_Key at index 0 (plan.h), in a second
 * statement of the partition with OpenSM's indx0 flag, which applies to
 * the ports of its own statement; a port listed again for the P_Key
 * without it would lose it, so each port is in one statement only
 * (tests/integration/t-indx0.py).  The statement repeats the SL, which
 * OpenSM sets from every statement.
 */
static void put_indx0(FILE *out, const struct vf_partition *part,
		      const struct vf_fabric *f)
{
	unsigned n = count_indx0(part);

	if (!n || n == part->num_members)
		return;
	put_name(out, part->name);
	fprintf(out, "=0x%04x, indx0", part->pkey);
	if (part->sl >= 0)
		fprintf(out, ", sl=%d", part->sl);
	fprintf(out, " :");
	put_members(out, part, f, true);
	fprintf(out, " ;\n\n");
}

static void put_partition(FILE *out, const struct vf_partition *part,
			  const struct vf_fabric *f)
{
	bool block = !part->ipoib && !part->stock_rules, all0;
	/* a partitions.conf's mtu and rate also check its IP groups */
	bool flags = part->ipoib || part->stock_rules;

	put_name(out, part->name);
	fprintf(out, "=0x%04x", part->pkey);
	if (part->ipoib)
		fprintf(out, ", ipoib");
	if (block)
		fprintf(out, BLOCK_FLAGS);
	if (part->mtu && flags)
		fprintf(out, ", mtu=%u", part->mtu);
	if (part->rate && flags)
		fprintf(out, ", rate=%u", part->rate);
	if (part->sl >= 0)
		fprintf(out, ", sl=%d", part->sl);
	if (part->raw_flags)
		fprintf(out, "%s", part->raw_flags);
	/* every member holds it at index 0: one statement (put_indx0) */
	all0 = part->num_members && count_indx0(part) == part->num_members;
	if (all0)
		fprintf(out, ", indx0");
	fprintf(out, " :");
	/*
	 * An mgid= definition takes the rest of its line, in OpenSM; one
	 * without a flag makes OpenSM read on past the end of its line
	 * (pconfstock.h): an unknown flag, which it ignores, stops that.
	 */
	for (unsigned i = 0; i < part->mgid_lines.n; i++)
		fprintf(out, "\n\t%s%s", part->mgid_lines.v[i],
			strchr(part->mgid_lines.v[i], ',') ? "" : ", vfabric");
	if (block)
		fprintf(out, "\n\t" BLOCK_MGID);
	/*
	 * OpenSM 3.3.23 reads past the end of an mgid= line, so a ';' there
	 * makes it parse stale bytes of its line buffer as a new partition:
	 * a parse error, and OpenSM's default policy (every port full) instead
	 * of ours.  A statement without members (a group that selects nothing
	 * on this fabric) ends on NONE, which OpenSM takes as no port.
	 */
	if (!put_members(out, part, f, all0) &&
	    (part->mgid_lines.n || !part->ipoib))
		fprintf(out, "\n\tNONE");
	fprintf(out, " ;\n\n");
	put_indx0(out, part, f);
}

static const struct vf_partition *part_by_pkey(const struct vf_plan *p,
					       uint16_t pkey)
{
	for (unsigned k = 0; k < p->num_parts; k++)
		if (p->parts[k].pkey == pkey)
			return &p->parts[k];
	return NULL;
}

/* "Name=0xPKEY[, indx0] :" and the members (all, or the indx0 ones). */
static void put_stock_members(FILE *out, const struct vf_partition *part,
			      const struct vf_fabric *f, bool indx0)
{
	bool first = true;

	put_name(out, part->name);
	fprintf(out, "=0x%04x%s :", part->pkey, indx0 ? ", indx0" : "");
	for (unsigned i = 0; i < part->num_members; i++) {
		const struct vf_part_member *m = &part->members[i];

		if (indx0 && !m->indx0)
			continue;
		fprintf(out, "%s\n\t0x%016llx=%s", first ? "" : ",",
			(unsigned long long)f->ports[m->port].guid,
			membership_word[m->membership]);
		first = false;
	}
	fprintf(out, " ;\n\n");
}

static int by_pkey(const void *a, const void *b)
{
	const struct vf_partition *x = *(const struct vf_partition *const *)a;
	const struct vf_partition *y = *(const struct vf_partition *const *)b;

	return (int)x->pkey - (int)y->pkey;
}

/*
 * A stock partitions.conf, as OpenSM made it: first each multicast group
 * in OpenSM's creation order (so that MLIDs come out the same), every
 * flag written out (an mgid= item with flags never makes OpenSM read on
 * past its statement, and an IP group's rate and MTU are its statement's);
 * then each partition's final members, no ipoib (the groups are above);
 * then, per partition, the ports that have it at index 0.  A partition
 * without members is dropped by OpenSM with its groups, as from the
 * source.
 */
static void put_stock(FILE *out, const struct vf_plan *p,
		      const struct vf_fabric *f)
{
	const struct vf_partition **order;

	for (unsigned i = 0; i < p->num_groups; i++) {
		const struct vf_pc_group *g = &p->groups[i];
		const struct vf_partition *part =
			part_by_pkey(p, p->vf_pkey[g->vf]);

		if (!part)
			continue;
		put_name(out, part->name);
		fprintf(out, "=0x%04x, mtu=%u, rate=%u :\n\tmgid=", part->pkey,
			g->mtu, g->rate);
		for (int b = 3; b >= 0; b--)
			fprintf(out, "%04x:", (unsigned)(g->mgid_hi >> (16 * b)) &
				0xffff);
		for (int b = 3; b >= 0; b--)
			fprintf(out, "%04x%s", (unsigned)(g->mgid_lo >> (16 * b)) &
				0xffff, b ? ":" : "");
		fprintf(out, ", scope=%u, sl=%u, Q_Key=0x%x, TClass=%u, FlowLabel=0x%x ;\n\n",
			g->scope, g->sl, g->qkey, g->tclass, g->flow_label);
	}
	/*
	 * By P_Key (the order of these statements means nothing to OpenSM):
	 * each partition's members, then per partition the ports that hold
	 * it at index 0 (each port in one of those at most).
	 */
	order = malloc((p->num_parts ? p->num_parts : 1) * sizeof(*order));
	for (unsigned k = 0; order && k < p->num_parts; k++)
		order[k] = &p->parts[k];
	if (order)
		qsort(order, p->num_parts, sizeof(*order), by_pkey);
	for (unsigned k = 0; k < p->num_parts; k++) {
		const struct vf_partition *part = order ? order[k] :
							  &p->parts[k];

		if (part->num_members)
			put_stock_members(out, part, f, false);
	}
	for (unsigned k = 0; k < p->num_parts; k++) {
		const struct vf_partition *part = order ? order[k] :
							  &p->parts[k];

		for (unsigned i = 0; i < part->num_members; i++)
			if (part->members[i].indx0) {
				put_stock_members(out, part, f, true);
				break;
			}
	}
	free(order);
}

void vf_emit_partitions(FILE *out, const struct vf_plan *p,
			const struct vf_fabric *f, const char *source)
{
	fprintf(out, "# Generated by opensm-vfabric from %s; rewritten on every heavy sweep.\n# Edit the source, not this file.\n\n",
		source);
	if (p->stock) {
		put_stock(out, p, f);
		return;
	}
	for (unsigned k = 0; k < p->num_parts; k++)
		put_partition(out, &p->parts[k], f);
}

/* Write through fn into path (vf_file_replace); 0 or -errno. */
static int write_atomic(const char *path,
			void (*fn)(FILE *out, const void *arg), const void *arg)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	int rc;

	if (!out)
		return -errno;
	fn(out, arg);
	if (fclose(out)) {
		free(text);
		return -ENOMEM;
	}
	rc = vf_file_replace(path, text, len);
	free(text);
	return rc;
}

struct plan_args {
	const struct vf_plan *p;
	const struct vf_fabric *f;
	const char *source;
};

static void put_plan(FILE *out, const void *arg)
{
	const struct plan_args *a = arg;

	vf_emit_partitions(out, a->p, a->f, a->source);
}

int vf_emit_partitions_file(const char *path, const struct vf_plan *p,
			    const struct vf_fabric *f, const char *source)
{
	struct plan_args a = { p, f, source };

	return write_atomic(path, put_plan, &a);
}

static void put_default(FILE *out, const void *source)
{
	fprintf(out, "# Generated by opensm-vfabric: %s has errors and no earlier version was good.\n# OpenSM's own default policy until it is fixed:\n\nDefault=0x7fff, ipoib : ALL=full, SELF=full ;\n",
		(const char *)source);
}

int vf_emit_default_policy_file(const char *path, const char *source)
{
	return write_atomic(path, put_default, source);
}

static void put_deny(FILE *out, const void *source)
{
	fprintf(out, "# Generated by opensm-vfabric: %s cannot be used and no earlier version was good.\n# Tenants apart until it is fixed: every end port a limited member of the\n# default partition (OpenSM's rule for ports a file does not list), the SM's\n# port and switch port 0s full.\n\nDefault=0x7fff, ipoib : ALL_SWITCHES=full, SELF=full ;\n",
		(const char *)source);
}

int vf_emit_deny_policy_file(const char *path, const char *source)
{
	return write_atomic(path, put_deny, source);
}
