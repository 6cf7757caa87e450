// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * vfabric-sa: a Subnet Administration client for PathRecord and
 * MCMemberRecord queries, joins and a query benchmark.  It speaks to any
 * SA (stock OpenSM, OpenSM with the vfabric plugin, a real fabric), and
 * its output is made to be parsed by tests: a status line, then one line
 * of key=value pairs per record, in a fixed order (or, with --json, one
 * JSON object of the same fields).
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "common/mad.h"
#include "routing/vfjson.h"
#include "tools/cmdhelp.h"
#include "tools/sa/cli.h"

#define TRANSPORT_TEXT \
	"transport (all commands):\n" \
	"  -C, --ca NAME   -P, --port N   the local port (default: first)\n" \
	"  --sm-lid LID    where to send (default: the port's SM LID)\n" \
	"  --timeout MS    per try (default 1000)   --retries N (default 2)\n"
#define SIMULATOR_TEXT \
	"Under ibsim (the simulator) run it with\n" \
	"LD_PRELOAD=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so,\n" \
	"SIM_HOST=<node> and the simulator's IBSIM_SOCKNAME.\n"

static const char usage_text[] =
	"usage: vfabric-sa <command> [options]\n"
	"\n"
	"A Subnet Administration client: asks the SA of the subnet a local\n"
	"port is on (OpenSM's, with or without the vfabric plugin) for\n"
	"PathRecords, MultiPathRecords and multicast memberships, as an\n"
	"application would, or measures its PathRecord query rate.  One\n"
	"status line, then one key=value line per record (or --json), made\n"
	"for scripts.  It opens the port's umad device (usually as root).\n"
	"\n"
	"commands:\n"
	"  path [--get] [--slid LID] [--dlid LID] [--sgid GID] [--dgid GID]\n"
	"       [--sid SID] [--pkey P] [--sl N] [--numb-path N]\n"
	"       [--reversible 0|1] [--mtu SEL] [--rate SEL] [--pkt-life SEL]\n"
	"       [--json]\n"
	"        PathRecord GetTable (--get: Get) with a component for each\n"
	"        field given (OpenSM: no source or no destination means all\n"
	"        ports).\n"
	"  join --mgid GID [--port-gid GID] [--pkey P] [--qkey Q] [--sl N]\n"
	"       [--tclass N] [--mtu SEL] [--rate SEL] [--join-state N]\n"
	"       [--create] [--json]\n"
	"        MCMemberRecord Set.  --port-gid defaults to this port's GID,\n"
	"        --join-state to 1 (full member).  --create adds what a join\n"
	"        that creates the group needs (IBA o15-0.2.3: Q_Key, TClass,\n"
	"        SL, FlowLabel, P_Key, JoinState, PortGID; P_Key 0xffff and\n"
	"        the others 0 unless given); without --mgid the SA picks it.\n"
	"  leave --mgid GID [--port-gid GID] [--join-state N] [--json]\n"
	"        MCMemberRecord Delete of that membership.\n"
	"  bench [--dlids LIST|FILE|all] [--count N] [--window K] [--get]\n"
	"       [--sid LIST] [--pkey P]\n"
	"        PathRecord query rate: N queries (default 1000), K at a\n"
	"        time (default 1) with distinct TIDs, cycling through the\n"
	"        DLIDs (LIST: 2,5,9-12; FILE: such LIDs, any whitespace;\n"
	"        all, the default: every LID the SA has a path to from this\n"
	"        port).  --sid LIST: ServiceIDs to cycle through per pass\n"
	"        over the DLIDs, 'none' for a query without one.  Prints\n"
	"        queries=N ok=N errors=N seconds=S qps=Q p50_us=N p99_us=N\n"
	"        max_us=N timeouts=N retries=N empty=N dlids=N (latency\n"
	"        from the first send of a query to its answer; ok: status 0;\n"
	"        empty: ok with no record; dlids: how many DLIDs cycled).\n"
	"  mpath --sgids GID,... --dgids GID,... [--sid SID] [--pkey P]\n"
	"       [--sl N] [--numb-path N] [--reversible 0|1] [--mtu SEL]\n"
	"       [--rate SEL] [--pkt-life SEL] [--json]\n"
	"        MultiPathRecord GetMulti between every source and every\n"
	"        destination GID (11 GIDs at most: one MAD); NumbPath counts\n"
	"        over all pairs.  Records are printed as for path.\n"
	"\n"
	"values:\n"
	"  LID, P, Q, SID, N     decimal or 0x hex\n"
	"  GID                   fe80::2:c903:0:11, or a GUID (0x2c90300000011)\n"
	"                        meaning the default prefix fe80::/64\n"
	"  SEL                   V (exactly), =V, >V, <V, or best (the largest\n"
	"                        MTU or rate, the smallest lifetime); --mtu V\n"
	"                        in bytes (256-4096), --rate and --pkt-life V\n"
	"                        the IBA codes (rate 3 = 10 Gb/s, 7 = 40 ...)\n"
	"\n"
	TRANSPORT_TEXT
	"\n"
	"  raw --attr-id A [--method M] [--comp-mask M] [--data HEX]\n"
	"        Any SA request: the header fields given (method default\n"
	"        Get), HEX the bytes after the SA header (at most 200).\n"
	"        Prints the status line, then data=HEX: the answer's bytes\n"
	"        after its SA header, trailing zeros left out.\n"
	"\n"
	"fault injection (path, join, leave, mpath, raw): the raw header\n"
	"  --comp-mask M  --method M  --attr-id A  --class-version V\n"
	"  --attr-mod M   --base-version V  --rmpp-flags F  --sm-key K\n"
	"                 replace what the command would send\n"
	"  --send-len N   send only the first N bytes of the MAD (1-256)\n"
	"\n"
	"output:\n"
	"  status 0xNNNN NAME records N truncated 0|1 tries N\n"
	"  then one line per record:\n"
	"  path:  slid=0x0002 dlid=0x0005 sgid=GID dgid=GID\n"
	"         sid=0x0000000000000000 pkey=0xffff sl=0 mtu=2048 rate=3\n"
	"         pktlife=18 numbpath=0 reversible=1 hoplimit=0 tclass=0\n"
	"         flowlabel=0x0 preference=0\n"
	"  join/leave: mgid=GID port_gid=GID mlid=0xc001 pkey=0xffff\n"
	"         qkey=0x0000000b sl=0 mtu=2048 rate=3 pktlife=0 tclass=0\n"
	"         flowlabel=0x0 hoplimit=0 scope=2 join_state=0x1\n"
	"  (mtu in bytes, rate and pktlife IBA codes).  truncated 1: the\n"
	"  answer lost its tail in transit, the records shown are whole\n"
	"  (under umad2sim an answer is one MAD, of which 224 bytes arrive:\n"
	"  2 PathRecords, 3 MCMemberRecords).\n"
	"  --json (path, mpath, join, leave): one object instead, the\n"
	"  status line's fields (status and records numbers, status_name,\n"
	"  truncated true|false, tries) and the records under path_records\n"
	"  or mcmember_records, each an object of the keys above: GIDs and\n"
	"  sid (64 bits) strings, every other field a number.\n"
	"\n"
	"exit status: 0 the SA answered (any status), 1 no answer or no port,\n"
	"2 bad usage.\n"
	"\n"
	"  -h, --help      this text (after a command: that command's)\n"
	"  -V, --version   the version\n"
	"\n"
	SIMULATOR_TEXT;
/* COMMAND --help ends with these too */
static const char command_help_tail[] = "\n" TRANSPORT_TEXT "\n"
	SIMULATOR_TEXT "\n'vfabric-sa --help' has the values, the output and every command.\n";

int sa_bad_usage(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "vfabric-sa: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'vfabric-sa --help'.\n");
	return EXIT_USAGE;
}

static const struct option long_opts[] = {
	{ "ca", required_argument, NULL, O_CA },
	{ "port", required_argument, NULL, O_PORT },
	{ "sm-lid", required_argument, NULL, O_SM_LID },
	{ "timeout", required_argument, NULL, O_TIMEOUT },
	{ "retries", required_argument, NULL, O_RETRIES },
	{ "comp-mask", required_argument, NULL, O_COMP_MASK },
	{ "method", required_argument, NULL, O_METHOD },
	{ "attr-id", required_argument, NULL, O_ATTR_ID },
	{ "class-version", required_argument, NULL, O_CLASS_VERSION },
	{ "attr-mod", required_argument, NULL, O_ATTR_MOD },
	{ "get", no_argument, NULL, O_GET },
	{ "slid", required_argument, NULL, O_SLID },
	{ "dlid", required_argument, NULL, O_DLID },
	{ "sgid", required_argument, NULL, O_SGID },
	{ "dgid", required_argument, NULL, O_DGID },
	{ "sid", required_argument, NULL, O_SID },
	{ "pkey", required_argument, NULL, O_PKEY },
	{ "sl", required_argument, NULL, O_SL },
	{ "numb-path", required_argument, NULL, O_NUMB_PATH },
	{ "reversible", required_argument, NULL, O_REVERSIBLE },
	{ "mtu", required_argument, NULL, O_MTU },
	{ "rate", required_argument, NULL, O_RATE },
	{ "pkt-life", required_argument, NULL, O_PKT_LIFE },
	{ "mgid", required_argument, NULL, O_MGID },
	{ "port-gid", required_argument, NULL, O_PORT_GID },
	{ "qkey", required_argument, NULL, O_QKEY },
	{ "join-state", required_argument, NULL, O_JOIN_STATE },
	{ "create", no_argument, NULL, O_CREATE },
	{ "tclass", required_argument, NULL, O_TCLASS },
	{ "dlids", required_argument, NULL, O_DLIDS },
	{ "count", required_argument, NULL, O_COUNT },
	{ "window", required_argument, NULL, O_WINDOW },
	{ "sgids", required_argument, NULL, O_SGIDS },
	{ "dgids", required_argument, NULL, O_DGIDS },
	{ "base-version", required_argument, NULL, O_BASE_VERSION },
	{ "rmpp-flags", required_argument, NULL, O_RMPP_FLAGS },
	{ "sm-key", required_argument, NULL, O_SM_KEY },
	{ "send-len", required_argument, NULL, O_SEND_LEN },
	{ "data", required_argument, NULL, O_DATA },
	{ "json", no_argument, NULL, O_JSON },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

_Static_assert(sizeof(long_opts) / sizeof(long_opts[0]) == O_NOPTS + 2,
	       "long_opts must list the options in enum sa_opt order");

static const struct command {
	const char *name;
	uint64_t opts;
} commands[] = {
	{ "path", OPTS_COMMON | OPTS_RAW | OPT(O_JSON) | OPT(O_GET) |
		  OPT(O_SLID) | OPT(O_DLID) | OPT(O_SGID) | OPT(O_DGID) |
		  OPT(O_SID) | OPT(O_PKEY) | OPT(O_SL) | OPT(O_NUMB_PATH) |
		  OPT(O_REVERSIBLE) | OPT(O_MTU) | OPT(O_RATE) |
		  OPT(O_PKT_LIFE) },
	{ "join", OPTS_COMMON | OPTS_RAW | OPT(O_JSON) | OPT(O_MGID) |
		  OPT(O_PORT_GID) | OPT(O_PKEY) | OPT(O_QKEY) | OPT(O_SL) |
		  OPT(O_TCLASS) | OPT(O_MTU) | OPT(O_RATE) |
		  OPT(O_JOIN_STATE) | OPT(O_CREATE) },
	{ "leave", OPTS_COMMON | OPTS_RAW | OPT(O_JSON) | OPT(O_MGID) |
		   OPT(O_PORT_GID) | OPT(O_JOIN_STATE) },
	{ "bench", OPTS_COMMON | OPT(O_DLIDS) | OPT(O_COUNT) |
		   OPT(O_WINDOW) | OPT(O_GET) | OPT(O_SID) | OPT(O_PKEY) },
	{ "mpath", OPTS_COMMON | OPTS_RAW | OPT(O_JSON) | OPT(O_SGIDS) |
		   OPT(O_DGIDS) | OPT(O_SID) | OPT(O_PKEY) | OPT(O_SL) |
		   OPT(O_NUMB_PATH) | OPT(O_REVERSIBLE) | OPT(O_MTU) |
		   OPT(O_RATE) | OPT(O_PKT_LIFE) },
	{ "raw", OPTS_COMMON | OPTS_RAW | OPT(O_DATA) },
};

/* An unsigned number no larger than max (decimal or 0x hex). */
static int number(const char *s, unsigned long long max,
		  unsigned long long *v)
{
	char *end;

	if (!*s || *s == '-')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return *end || errno || *v > max ? -1 : 0;
}

static int set_number(int opt, const char *arg, struct sa_opts *o)
{
	static const struct { int opt; unsigned long long max; } limits[] = {
		{ O_PORT, 254 }, { O_SM_LID, 0xffff }, { O_TIMEOUT, 3600000 },
		{ O_RETRIES, 100 }, { O_COMP_MASK, ~0ull }, { O_METHOD, 0xff },
		{ O_ATTR_ID, 0xffff }, { O_CLASS_VERSION, 0xff },
		{ O_ATTR_MOD, 0xffffffff }, { O_SLID, 0xffff },
		{ O_DLID, 0xffff }, { O_PKEY, 0xffff }, { O_SL, 15 },
		{ O_NUMB_PATH, 127 }, { O_REVERSIBLE, 1 }, { O_QKEY, 0xffffffff },
		{ O_JOIN_STATE, 15 }, { O_TCLASS, 0xff }, { O_COUNT, 100000000 },
		{ O_WINDOW, 256 }, { O_BASE_VERSION, 0xff },
		{ O_RMPP_FLAGS, 0xff }, { O_SM_KEY, ~0ull },
		{ O_SEND_LEN, VF_MAD_SIZE },
	};
	unsigned long long v;
	size_t i;

	for (i = 0; i < sizeof(limits) / sizeof(limits[0]); i++)
		if (limits[i].opt == opt)
			break;
	if (number(arg, limits[i].max, &v) < 0)
		return sa_bad_usage("--%s takes a number from 0 to %llu, not '%s'",
				    long_opts[opt].name, limits[i].max, arg);
	switch (opt) {
	case O_PORT: o->port = (int)v; break;
	case O_SM_LID: o->sm_lid = (unsigned)v; break;
	case O_TIMEOUT: o->timeout_ms = (int)v; break;
	case O_RETRIES: o->retries = (int)v; break;
	case O_COMP_MASK: o->comp_mask = v; break;
	case O_METHOD: o->method = (uint8_t)v; break;
	case O_ATTR_ID: o->attr_id = (uint16_t)v; break;
	case O_CLASS_VERSION: o->class_version = (uint8_t)v; break;
	case O_ATTR_MOD: o->attr_mod = (uint32_t)v; break;
	case O_SLID: o->slid = (uint16_t)v; break;
	case O_DLID: o->dlid = (uint16_t)v; break;
	case O_PKEY: o->pkey = (uint16_t)v; break;
	case O_SL: o->sl = (uint8_t)v; break;
	case O_NUMB_PATH: o->numb_path = (uint8_t)v; break;
	case O_REVERSIBLE: o->reversible = v; break;
	case O_QKEY: o->qkey = (uint32_t)v; break;
	case O_JOIN_STATE: o->join_state = (uint8_t)v; break;
	case O_TCLASS: o->tclass = (uint8_t)v; break;
	case O_COUNT: o->count = (unsigned long)v; break;
	case O_WINDOW: o->window = (unsigned)v; break;
	case O_BASE_VERSION: o->base_version = (uint8_t)v; break;
	case O_RMPP_FLAGS: o->rmpp_flags = (uint8_t)v; break;
	case O_SM_KEY: o->sm_key = v; break;
	case O_SEND_LEN: o->send_len = (unsigned)v; break;
	}
	return 0;
}

static int set_gid(int opt, const char *arg, uint8_t gid[16])
{
	if (vf_parse_gid(arg, gid) < 0)
		return sa_bad_usage("--%s takes a GID (fe80::...) or a GUID, not '%s'",
				    long_opts[opt].name, arg);
	return 0;
}

/* "GID,GID,...": at most VF_MPR_MAX_GIDS in all (with the other list). */
static int set_gid_list(int opt, const char *arg, uint8_t (*gids)[16],
			unsigned *n, unsigned other)
{
	char buf[1024], *save = NULL;

	if (strlen(arg) >= sizeof(buf))
		return sa_bad_usage("--%s: list too long", long_opts[opt].name);
	strcpy(buf, arg);
	*n = 0;
	for (char *g = strtok_r(buf, ",", &save); g;
	     g = strtok_r(NULL, ",", &save)) {
		if (*n + other >= VF_MPR_MAX_GIDS)
			return sa_bad_usage("--sgids and --dgids: at most %u GIDs in all (one MAD)",
					    (unsigned)VF_MPR_MAX_GIDS);
		if (set_gid(opt, g, gids[(*n)++]))
			return EXIT_USAGE;
	}
	return *n ? 0 : sa_bad_usage("--%s: no GID", long_opts[opt].name);
}

static int set_selector(int opt, const char *arg, uint8_t *sel,
			uint8_t *val)
{
	if (vf_parse_selector(arg, opt == O_MTU, sel, val) < 0)
		return sa_bad_usage("--%s takes V, =V, >V, <V or best%s, not '%s'",
				    long_opts[opt].name,
				    opt == O_MTU ? " (V: 256 to 4096)" :
				    " (V: an IBA code, 0 to 63)", arg);
	return 0;
}

/* Hex digits (spaces, colons allowed between bytes) into o->data. */
static int set_data(const char *arg, struct sa_opts *o)
{
	o->data_len = 0;
	for (const char *c = arg; *c;) {
		unsigned byte;

		if (*c == ' ' || *c == ':') {
			c++;
			continue;
		}
		if (o->data_len == sizeof(o->data) ||
		    sscanf(c, "%2x", &byte) != 1 || !isxdigit((unsigned char)c[1]))
			return sa_bad_usage("--data takes at most %zu bytes in hex digit pairs",
					    sizeof(o->data));
		o->data[o->data_len++] = (uint8_t)byte;
		c += 2;
	}
	return 0;
}

static int set_option(int opt, const char *arg, struct sa_opts *o)
{
	unsigned long long v;

	switch (opt) {
	case O_CA: o->ca = arg; return 0;
	case O_GET: case O_CREATE: case O_JSON: return 0;
	case O_SGID: return set_gid(opt, arg, o->sgid);
	case O_DGID: return set_gid(opt, arg, o->dgid);
	case O_MGID: return set_gid(opt, arg, o->mgid);
	case O_PORT_GID: return set_gid(opt, arg, o->port_gid);
	case O_MTU: return set_selector(opt, arg, &o->mtu_sel, &o->mtu);
	case O_RATE: return set_selector(opt, arg, &o->rate_sel, &o->rate);
	case O_PKT_LIFE: return set_selector(opt, arg, &o->life_sel,
					     &o->life);
	case O_DLIDS: o->dlids = arg; return 0;
	case O_DATA: return set_data(arg, o);
	case O_SGIDS: return set_gid_list(opt, arg, o->sgids, &o->nsgids,
					  o->ndgids);
	case O_DGIDS: return set_gid_list(opt, arg, o->dgids, &o->ndgids,
					  o->nsgids);
	case O_SID:
		/* a list for bench, checked there; one SID for path */
		o->sids = arg;
		if (number(arg, ~0ull, &v) == 0)
			o->sid = v;
		return 0;
	default: return set_number(opt, arg, o);
	}
}

static int parse(int argc, char **argv, const struct command *cmd,
		 struct sa_opts *o)
{
	int ch, rc;

	memset(o, 0, sizeof(*o));
	o->timeout_ms = 1000;
	o->retries = 2;
	o->join_state = 1;
	o->count = 1000;
	o->window = 1;
	o->class_version = VF_SA_CLASS_VERSION;
	o->base_version = 1;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "C:P:h", long_opts, NULL)) != -1) {
		if (ch == 'h') {
			fputs(usage_text, stdout);
			exit(0);
		}
		if (ch == 'C')
			ch = O_CA;
		else if (ch == 'P')
			ch = O_PORT;
		else if (ch < 0 || ch >= O_NOPTS)
			return EXIT_USAGE;	/* getopt said why */
		if (!(cmd->opts & OPT(ch)))
			return sa_bad_usage("%s takes no --%s", cmd->name,
					    long_opts[ch].name);
		o->given |= OPT(ch);
		rc = set_option(ch, optarg, o);
		if (rc)
			return rc;
	}
	if (optind < argc)
		return sa_bad_usage("unexpected argument '%s'", argv[optind]);
	if (given(o, O_SID) && strcmp(cmd->name, "bench") &&
	    number(o->sids, ~0ull, &(unsigned long long){ 0 }) < 0)
		return sa_bad_usage("--sid takes a number, not '%s'", o->sids);
	if (!strcmp(cmd->name, "leave") || !strcmp(cmd->name, "join")) {
		if (!given(o, O_MGID) && !given(o, O_CREATE) &&
		    !given(o, O_COMP_MASK))
			return sa_bad_usage("%s needs --mgid", cmd->name);
	}
	if (!strcmp(cmd->name, "raw") && !given(o, O_ATTR_ID))
		return sa_bad_usage("raw needs --attr-id");
	if (given(o, O_SEND_LEN) && o->send_len < 1)
		return sa_bad_usage("--send-len must be at least 1");
	if (o->timeout_ms < 1)
		return sa_bad_usage("--timeout must be at least 1 ms");
	if (given(o, O_WINDOW) && o->window < 1)
		return sa_bad_usage("--window must be at least 1");
	return 0;
}

void sa_request_hdr(const struct sa_opts *o, struct vf_sa_hdr *h,
		    uint32_t tid, uint8_t method, uint16_t attr,
		    uint64_t comp_mask)
{
	memset(h, 0, sizeof(*h));
	h->class_version = o->class_version;
	h->method = given(o, O_METHOD) ? o->method : method;
	h->tid = tid;
	h->attr_id = given(o, O_ATTR_ID) ? o->attr_id : attr;
	h->attr_mod = o->attr_mod;
	h->comp_mask = given(o, O_COMP_MASK) ? o->comp_mask : comp_mask;
}

/* The options of this run, for what sa_ask() applies to every request. */
static const struct sa_opts *run_opts;

/*
 * --json: the answer's object (the status line's fields), its list of
 * records under list_key, and whether memory ran out on the way.
 */
static struct json_object *json_out, *json_recs;
static const char *list_key;
static int json_rc;

static bool json_mode(void)
{
	return run_opts && given(run_opts, O_JSON);
}

void sa_print_status(const struct vf_sa_hdr *h, unsigned records,
		     bool truncated, int tries)
{
	if (!json_mode()) {
		printf("status 0x%04x %s records %u truncated %d tries %d\n",
		       h->status, vf_sa_status_name(h->status), records,
		       truncated, tries);
		return;
	}
	json_object_put(json_out);
	json_out = json_object_new_object();
	json_recs = json_object_new_array();
	json_rc |= vf_json_add(json_out, "status",
			       json_object_new_int(h->status));
	json_rc |= vf_json_add(json_out, "status_name", json_object_new_string(
				       vf_sa_status_name(h->status)));
	json_rc |= vf_json_add(json_out, "records",
			       json_object_new_int64(records));
	json_rc |= vf_json_add(json_out, "truncated",
			       json_object_new_boolean(truncated));
	json_rc |= vf_json_add(json_out, "tries", json_object_new_int(tries));
	json_object_get(json_recs);	/* main() still adds records */
	json_rc |= vf_json_add(json_out, list_key, json_recs);
}

/* An integer field of a record object. */
static void field(struct json_object *o, const char *key, int64_t v)
{
	json_rc |= vf_json_add(o, key, json_object_new_int64(v));
}

static void field_str(struct json_object *o, const char *key,
		      const char *v)
{
	json_rc |= vf_json_add(o, key, json_object_new_string(v));
}

void sa_print_path(const struct vf_path_rec *pr)
{
	char s[64], d[64], sid[24];
	struct json_object *o;

	if (!json_mode()) {
		printf("slid=0x%04x dlid=0x%04x sgid=%s dgid=%s sid=0x%016llx pkey=0x%04x sl=%u mtu=%u rate=%u pktlife=%u numbpath=%u reversible=%u hoplimit=%u tclass=%u flowlabel=0x%x preference=%u\n",
		       pr->slid, pr->dlid, vf_gid_str(pr->sgid, s, sizeof(s)),
		       vf_gid_str(pr->dgid, d, sizeof(d)),
		       (unsigned long long)pr->service_id, pr->pkey, pr->sl,
		       vf_mtu_bytes(pr->mtu), pr->rate, pr->life,
		       pr->numb_path, pr->reversible, pr->hop_limit,
		       pr->tclass, pr->flow_label, pr->preference);
		return;
	}
	o = json_object_new_object();
	field(o, "slid", pr->slid);
	field(o, "dlid", pr->dlid);
	field_str(o, "sgid", vf_gid_str(pr->sgid, s, sizeof(s)));
	field_str(o, "dgid", vf_gid_str(pr->dgid, d, sizeof(d)));
	/* 64 bits: a string, as the text has it (no double holds it) */
	snprintf(sid, sizeof(sid), "0x%016llx",
		 (unsigned long long)pr->service_id);
	field_str(o, "sid", sid);
	field(o, "pkey", pr->pkey);
	field(o, "sl", pr->sl);
	field(o, "mtu", vf_mtu_bytes(pr->mtu));
	field(o, "rate", pr->rate);
	field(o, "pktlife", pr->life);
	field(o, "numbpath", pr->numb_path);
	field(o, "reversible", pr->reversible);
	field(o, "hoplimit", pr->hop_limit);
	field(o, "tclass", pr->tclass);
	field(o, "flowlabel", pr->flow_label);
	field(o, "preference", pr->preference);
	json_rc |= vf_json_push(json_recs, o);
}

void sa_print_mcmember(const struct vf_mcmember_rec *mr)
{
	char m[64], g[64];
	struct json_object *o;

	if (!json_mode()) {
		printf("mgid=%s port_gid=%s mlid=0x%04x pkey=0x%04x qkey=0x%08x sl=%u mtu=%u rate=%u pktlife=%u tclass=%u flowlabel=0x%x hoplimit=%u scope=%u join_state=0x%x\n",
		       vf_gid_str(mr->mgid, m, sizeof(m)),
		       vf_gid_str(mr->port_gid, g, sizeof(g)), mr->mlid,
		       mr->pkey, mr->qkey, mr->sl, vf_mtu_bytes(mr->mtu),
		       mr->rate, mr->life, mr->tclass, mr->flow_label,
		       mr->hop_limit, mr->scope, mr->join_state);
		return;
	}
	o = json_object_new_object();
	field_str(o, "mgid", vf_gid_str(mr->mgid, m, sizeof(m)));
	field_str(o, "port_gid", vf_gid_str(mr->port_gid, g, sizeof(g)));
	field(o, "mlid", mr->mlid);
	field(o, "pkey", mr->pkey);
	field(o, "qkey", mr->qkey);
	field(o, "sl", mr->sl);
	field(o, "mtu", vf_mtu_bytes(mr->mtu));
	field(o, "rate", mr->rate);
	field(o, "pktlife", mr->life);
	field(o, "tclass", mr->tclass);
	field(o, "flowlabel", mr->flow_label);
	field(o, "hoplimit", mr->hop_limit);
	field(o, "scope", mr->scope);
	field(o, "join_state", mr->join_state);
	json_rc |= vf_json_push(json_recs, o);
}

/* --json: print the answer gathered (none without an answer). */
static int print_json(int rc)
{
	int prc = json_rc;

	if (json_out && !prc)
		prc = vf_json_print(stdout, json_out,
				    JSON_C_TO_STRING_PRETTY |
				    JSON_C_TO_STRING_SPACED);
	json_object_put(json_recs);
	json_object_put(json_out);
	if (!prc)
		return rc;
	fprintf(stderr, "vfabric-sa: cannot print the JSON: %s\n",
		strerror(-prc));
	return EXIT_TRANSPORT;
}

int sa_ask(struct vf_sa_port *p, uint8_t *mad, struct vf_sa_hdr *rh,
	   struct vf_sa_reply *r, unsigned *count)
{
	bool truncated;
	int rc, tries;

	/* byte overrides, over what the command set (mpath's RMPP flags) */
	if (run_opts) {
		mad[0] = run_opts->base_version;
		if (given(run_opts, O_RMPP_FLAGS))
			mad[26] = run_opts->rmpp_flags;
		if (given(run_opts, O_SM_KEY))
			vf_put64(mad + 36, run_opts->sm_key);
	}
	rc = vf_sa_query(p, mad, r, &tries);
	if (rc == -ETIMEDOUT) {
		fprintf(stderr, "vfabric-sa: no answer from the SA at LID %u after %d tries of %d ms\n",
			p->sm_lid, tries, p->timeout_ms);
		return EXIT_TRANSPORT;
	}
	if (rc < 0) {
		fprintf(stderr, "vfabric-sa: transport error: %s\n",
			strerror(-rc));
		return EXIT_TRANSPORT;
	}
	vf_sa_hdr_decode(r->mad, rh);
	*count = vf_sa_record_count(rh, r->len, &truncated);
	/* an error answer is a whole 256-byte MAD of which nothing counts */
	truncated |= r->cut && !rh->status;
	sa_print_status(rh, *count, truncated, tries);
	if (truncated)
		fprintf(stderr, "vfabric-sa: the answer was cut to %zu bytes in transit; records after the %u shown are lost\n",
			r->len, *count);
	return EXIT_ANSWERED;
}

int main(int argc, char **argv)
{
	struct vf_sa_port port;
	struct sa_opts o;
	size_t i;
	int rc;

	if (argc < 2)
		return sa_bad_usage("which command? (path, join, leave, bench, mpath, raw)");
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		fputs(usage_text, stdout);
		return 0;
	}
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
		printf("vfabric-sa (opensm-vfabric) %s\n", PACKAGE_VERSION);
		return 0;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			break;
	if (i == sizeof(commands) / sizeof(commands[0]))
		return sa_bad_usage("unknown command '%s'", argv[1]);
	if (vf_wants_help(argc - 1, argv + 1)) {
		vf_command_help(usage_text, "vfabric-sa", commands[i].name);
		fputs(command_help_tail, stdout);
		return 0;
	}
	rc = parse(argc - 1, argv + 1, &commands[i], &o);
	if (rc)
		return rc;
	if (vf_sa_open(&port, o.ca, o.port, o.sm_lid, o.timeout_ms,
		       o.retries) < 0)
		return EXIT_TRANSPORT;
	run_opts = &o;
	list_key = i == 1 || i == 2 ? "mcmember_records" : "path_records";
	port.send_len = o.send_len;
	if (i == 0)
		rc = cmd_path(&port, &o);
	else if (i < 3)
		rc = cmd_mcast(&port, &o, i == 1);
	else if (i == 3)
		rc = cmd_bench(&port, &o);
	else if (i == 4)
		rc = cmd_mpath(&port, &o);
	else
		rc = cmd_raw(&port, &o);
	if (given(&o, O_JSON))
		rc = print_json(rc);
	vf_sa_close(&port);
	fflush(stdout);
	return rc;
}
