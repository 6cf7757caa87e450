// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * LFT dumps.  We write exactly what OpenSM 3.3.23 writes to
 * opensm-lfts.dump (osm_dump.c dump_ucast_lfts), so OpenSM's own
 * "lfts_file" loader and scripts written for it read ours.  We read that
 * format and the tables dump_fts / ibroute print, which differ only in the
 * header details, the " : (...)" destination column and the trailer.
 */
#include <ctype.h>
#include <endian.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "lftdump.h"

static const char *type_str(uint8_t type)
{
	/* OpenSM's ib_get_node_type_str() */
	switch (type) {
	case VF_NODE_CA:
		return "Channel Adapter";
	case VF_NODE_SWITCH:
		return "Switch";
	case VF_NODE_ROUTER:
		return "Router";
	default:
		return "UNKNOWN";
	}
}

/* The port owning lid in f, or NULL. */
static const struct vf_port *lid_owner(const struct vf_fabric *f,
				       unsigned lid)
{
	if (!lid || lid > f->max_lid || !f->lid_port ||
	    f->lid_port[lid] == VF_NONE)
		return NULL;
	return &f->ports[f->lid_port[lid]];
}

/*
 * What follows an entry's port for each LID, "# <type> portguid ...\n",
 * written once: it is the same in every switch's section, and formatting
 * it anew for every entry made a 27,648-host dump take half a minute.
 */
struct lid_text {
	char *buf;
	size_t *at;		/* [max_lid + 2] offsets into buf */
};

static int lid_text_init(struct lid_text *x, const struct vf_fabric *f,
			 unsigned max_lid)
{
	size_t size = 0, cap = 4096;

	x->at = malloc(((size_t)max_lid + 2) * sizeof(*x->at));
	x->buf = malloc(cap);
	if (!x->at || !x->buf)
		return -ENOMEM;
	for (unsigned lid = 0; lid <= max_lid; lid++) {
		const struct vf_port *p = lid_owner(f, lid);
		char line[600];
		int n;

		if (p) {
			const struct vf_node *dst = &f->nodes[p->node];

			n = snprintf(line, sizeof(line),
				     "# %s portguid 0x%016llx: '%s'\n",
				     type_str(dst->type),
				     (unsigned long long)p->guid,
				     vf_node_desc(f, dst));
		} else {
			n = snprintf(line, sizeof(line),
				     "# unknown node and type\n");
		}
		if (n < 0 || (size_t)n >= sizeof(line))
			n = (int)strlen(line);
		if (size + (size_t)n > cap) {
			char *grown;

			while (size + (size_t)n > cap)
				cap *= 2;
			grown = realloc(x->buf, cap);
			if (!grown)
				return -ENOMEM;
			x->buf = grown;
		}
		x->at[lid] = size;
		memcpy(x->buf + size, line, (size_t)n);
		size += (size_t)n;
	}
	x->at[max_lid + 1] = size;
	return 0;
}

static void lid_text_free(struct lid_text *x)
{
	free(x->buf);
	free(x->at);
}

/* "0x%04x %03u " by hand: the writer's hot loop. */
static size_t entry_prefix(char *out, unsigned lid, unsigned port)
{
	static const char hex[] = "0123456789abcdef";
	size_t n = 0;
	char digits[8];
	int k = 0;

	out[n++] = '0';
	out[n++] = 'x';
	do {
		digits[k++] = hex[lid & 15];
		lid >>= 4;
	} while (lid);
	for (int pad = k; pad < 4; pad++)
		out[n++] = '0';
	while (k)
		out[n++] = digits[--k];
	out[n++] = ' ';
	out[n++] = (char)('0' + port / 100);
	out[n++] = (char)('0' + port / 10 % 10);
	out[n++] = (char)('0' + port % 10);
	out[n++] = ' ';
	return n;
}

static void write_switch(FILE *out, const struct vf_fabric *f,
			 const struct vf_lfts *t, uint32_t sw,
			 const struct lid_text *text)
{
	const struct vf_node *node = &f->nodes[f->switches[sw]];
	const uint8_t *row = vf_lft_row(t, sw);

	fprintf(out, "Unicast lids [0-%u] of switch Lid %u guid 0x%016llx ('%s'):\n",
		t->max_lid, vf_node_port(f, node, 0)->base_lid,
		(unsigned long long)node->guid, vf_node_desc(f, node));
	for (unsigned lid = 0; lid <= t->max_lid; lid++) {
		char prefix[24];

		/* OpenSM skips entries >= its port count, 255 included */
		if (row[lid] > node->num_ports)
			continue;
		fwrite(prefix, 1, entry_prefix(prefix, lid, row[lid]), out);
		fwrite(text->buf + text->at[lid], 1,
		       text->at[lid + 1] - text->at[lid], out);
	}
	fprintf(out, "%u lids dumped\n", t->max_lid);
}

/*
 * OpenSM walks its switch map, a cl_qmap keyed by the GUID in network
 * byte order read as a host integer; sort the same way so that our file
 * lists the switches in OpenSM's order.
 */
struct sw_key {
	uint64_t key;
	uint32_t sw;
};

static int cmp_key(const void *a, const void *b)
{
	uint64_t x = ((const struct sw_key *)a)->key;
	uint64_t y = ((const struct sw_key *)b)->key;

	return x < y ? -1 : x > y;
}

int vf_lftdump_write(FILE *out, const struct vf_fabric *f,
		     const struct vf_lfts *t)
{
	struct lid_text text = { NULL, NULL };
	struct sw_key *order;

	if (!f->finalized || t->num_switches != f->num_switches)
		return -EINVAL;

	order = malloc((f->num_switches + 1) * sizeof(*order));
	if (!order || lid_text_init(&text, f, t->max_lid)) {
		free(order);
		lid_text_free(&text);
		return -ENOMEM;
	}
	for (uint32_t sw = 0; sw < f->num_switches; sw++) {
		order[sw].key = htobe64(f->nodes[f->switches[sw]].guid);
		order[sw].sw = sw;
	}
	qsort(order, f->num_switches, sizeof(*order), cmp_key);
	for (uint32_t i = 0; i < f->num_switches; i++)
		write_switch(out, f, t, order[i].sw, &text);
	free(order);
	lid_text_free(&text);
	if (fflush(out) || ferror(out))
		return -EIO;
	return 0;
}

/* Reading. */

struct reader {
	const struct vf_fabric *f;
	struct vf_lfts *t;
	struct vf_err *err;
	const char *name;
	unsigned line;
	uint32_t sw;		/* section being read, or VF_NONE */
	bool skip;		/* inside a multicast section */
	bool *seen;		/* switches that had a section */
	unsigned sections;
};

static int rerr(struct reader *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int rerr(struct reader *r, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return vf_err_set(r->err, "%s:%u: %s", r->name, r->line, msg);
}

static bool starts(const char *s, const char *word)
{
	return !strncmp(s, word, strlen(word));
}

/* A hex number after "0x", ending at whitespace, ':', ')' or NUL. */
static int hex_after(const char *s, uint64_t *v)
{
	char *end;

	if (!isxdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, 16);
	if (errno || (*end && !isspace((unsigned char)*end) &&
		      !strchr(":)", *end)))
		return -EINVAL;
	return 0;
}

/* "Unicast lids [..] of switch ... guid 0x<guid> (...):" */
static int parse_header(struct reader *r, const char *s)
{
	const char *g = strstr(s, " guid 0x");
	uint64_t guid;
	uint32_t n;

	if (!g || hex_after(g + 8, &guid))
		return rerr(r, "cannot parse the switch GUID in the LFT header");
	n = vf_fabric_find_guid(r->f, guid);
	if (n == VF_NONE || !vf_is_switch(&r->f->nodes[n]))
		return rerr(r, "switch 0x%016llx is not in the fabric",
			    (unsigned long long)guid);
	r->sw = r->f->nodes[n].sw;
	if (r->seen[r->sw])
		return rerr(r, "switch 0x%016llx (\"%s\"): second LFT section",
			    (unsigned long long)guid,
			    vf_node_name(r->f, &r->f->nodes[n]));
	r->seen[r->sw] = true;
	r->sections++;
	return 0;
}

/*
 * The destination's port GUID, if the line names one, must be the port
 * that owns the LID in the fabric: otherwise the dump belongs to another
 * LID assignment and its entries would be misread.
 */
static int check_dest(struct reader *r, const char *rest, unsigned lid,
		      const char *swname)
{
	const char *g = strstr(rest, "portguid 0x");
	const struct vf_port *p = lid_owner(r->f, lid);
	uint64_t guid;

	if (!g)
		return 0;
	if (hex_after(g + 11, &guid))
		return rerr(r, "switch \"%s\" LID %u: bad port GUID", swname,
			    lid);
	if (!p || p->guid != guid)
		return rerr(r, "switch \"%s\" LID %u: dump says port 0x%016llx, fabric has %s 0x%016llx",
			    swname, lid, (unsigned long long)guid,
			    p ? "port" : "no port, GUID",
			    (unsigned long long)(p ? p->guid : 0));
	return 0;
}

/* "0x0004 003 # ..." (OpenSM) or "0x0004 003 : (...)" (dump_fts). */
static int parse_entry(struct reader *r, const char *s)
{
	const struct vf_node *node;
	const char *swname;
	unsigned long lid, port;
	char *end;

	if (r->sw == VF_NONE)
		return rerr(r, "LFT entry outside a switch section");
	node = &r->f->nodes[r->f->switches[r->sw]];
	swname = vf_node_name(r->f, node);
	errno = 0;
	lid = strtoul(s + 2, &end, 16);
	if (errno || end == s + 2 || !isspace((unsigned char)*end))
		return rerr(r, "switch \"%s\": bad LID \"%.20s\"", swname, s);
	s = end;
	while (isspace((unsigned char)*s))
		s++;
	errno = 0;
	port = strtoul(s, &end, 10);
	if (errno || end == s || (*end && !isspace((unsigned char)*end)))
		return rerr(r, "switch \"%s\" LID %lu: bad port \"%.20s\"",
			    swname, lid, s);
	if (lid > r->f->max_lid || (lid && !lid_owner(r->f, lid)))
		return rerr(r, "switch \"%s\": LID %lu is not in the fabric",
			    swname, lid);
	if (port > node->num_ports && port != VF_NO_PORT)
		return rerr(r, "switch \"%s\" LID %lu: port %lu out of range (switch has %u ports)",
			    swname, lid, port, node->num_ports);
	if (check_dest(r, end, lid, swname))
		return -EINVAL;
	vf_lft_row(r->t, r->sw)[lid] = port;
	return 0;
}

static int parse_line(struct reader *r, const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	if (!*s || *s == '#')
		return 0;
	if (starts(s, "Unicast lids")) {
		r->skip = false;
		return parse_header(r, s);
	}
	if (starts(s, "Multicast mlids")) {
		/* dump_fts -M: not ours to read */
		r->skip = true;
		r->sw = VF_NONE;
		return 0;
	}
	if (r->skip)
		return 0;
	if (starts(s, "0x"))
		return parse_entry(r, s);
	/* the trailer ends a section: "N lids dumped", "N valid lids dumped" */
	if (isdigit((unsigned char)*s) && strstr(s, "lids dumped")) {
		r->sw = VF_NONE;
		return 0;
	}
	/* the note the dump_lfts script of infiniband-diags ends with */
	if (starts(s, "*** WARNING ***: this command has been replaced by "
		      "dump_fts"))
		return 0;
	/* ibroute / dump_fts column titles */
	if (r->sw != VF_NONE && (starts(s, "Lid ") || starts(s, "Port ")))
		return 0;
	return rerr(r, "unrecognised line \"%.40s\"", s);
}

int vf_lftdump_read(FILE *in, const char *name, const struct vf_fabric *f,
		    struct vf_lfts *t, struct vf_err *err)
{
	struct reader r = {
		.f = f, .t = t, .err = err, .sw = VF_NONE,
		.name = name ? name : "(stream)",
	};
	char *line = NULL;
	size_t cap = 0;
	int rc;

	if (!f->finalized)
		return vf_err_set(err, "%s: fabric is not finalized", r.name);
	rc = vf_lfts_init(t, f->num_switches, f->max_lid);
	r.seen = calloc(f->num_switches + 1, sizeof(*r.seen));
	if (rc || !r.seen) {
		free(r.seen);
		vf_lfts_free(t);
		vf_err_set(err, "%s: out of memory", r.name);
		return -ENOMEM;
	}
	while (!rc && getline(&line, &cap, in) >= 0) {
		r.line++;
		rc = parse_line(&r, line);
	}
	if (!rc && ferror(in))
		rc = vf_err_set(err, "%s: read error", r.name);
	if (!rc && !r.sections && f->num_switches)
		rc = vf_err_set(err, "%s: no LFT sections (\"Unicast lids ...\")",
				r.name);
	free(line);
	free(r.seen);
	if (rc)
		vf_lfts_free(t);
	return rc;
}

int vf_lftdump_load(const char *path, const struct vf_fabric *f,
		    struct vf_lfts *t, struct vf_err *err)
{
	FILE *in = fopen(path, "r");
	int rc;

	if (!in) {
		rc = -errno;
		vf_err_set(err, "%s: %s", path, strerror(errno));
		return rc;
	}
	rc = vf_lftdump_read(in, path, f, t, err);
	fclose(in);
	return rc;
}
