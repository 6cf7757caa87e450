// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * vfabric-em: the Ethernet Manager's view of a fabric's VNIC endpoints
 * over the EMA protocol (docs/em-cli.md, docs/ema-protocol.md): find
 * them, show their vESWs, MAC tables and counters, and configure them
 * as an EM would (a test tool, and an admin's while no EM runs).
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/cmdhelp.h"
#include "tools/em/emtool.h"

#define COMMON_TEXT \
	"authentication: --key HEX  the EM key every request carries.\n" \
	"  Endpoints take Sets only from the master SM's port (run this at\n" \
	"  its node) and, once they hold a key, only carrying it.\n" \
	"\n" \
	"transport: -C, --ca NAME  -P, --port N  --sm-lid LID\n" \
	"  --timeout MS (per try, default 1500: endpoints answer within\n" \
	"  1.07 s)  --retries N (default 1)  --max-lid LID (discovery, 0xBFFF)\n"
#define SIMULATOR_TEXT \
	"Under ibsim (the simulator) run it with\n" \
	"LD_PRELOAD=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so,\n" \
	"SIM_HOST=<node> and the simulator's IBSIM_SOCKNAME.\n"

static const char usage_text[] =
	"usage: vfabric-em <command> [options] [LID...]\n"
	"\n"
	"The Ethernet Manager's client of a fabric's VNIC endpoints (EMA,\n"
	"class 0x3B): finds them (NodeRecords from the SA), shows their\n"
	"virtual Ethernet switches, vports, MAC tables and counters (a table\n"
	"or JSON), and configures them as an Ethernet Manager would.  It\n"
	"opens a local port's umad device (usually as root); Sets are taken\n"
	"only from the master SM's port.\n"
	"\n"
	"commands:\n"
	"  probe [LID...]     ClassPortInfo of each LID: endpoint or not,\n"
	"                     vports, trap LID.  Without LIDs: every CA port\n"
	"                     the SA knows (the SM's own port is skipped).\n"
	"  show [LID...] [--vport N] [--json]\n"
	"                     one row per vport: node, port GUID, vESW, P_Key,\n"
	"                     MAC, MTU, config/oper state, link, encap SLID,\n"
	"                     port number, MAC-table entries; ports without\n"
	"                     an endpoint are listed as such.\n"
	"  macs LID [--vport N] [--json]        the MAC table\n"
	"  counters LID [--vport N] [--json]    summary and error counters\n"
	"  set LID [--vport N] [--vesw ID] [--fabric ID] [--pkey P] [--mtu M]\n"
	"      [--mcast-dlid LID] [--default-dlid LID]... [--mac MAC]\n"
	"      [--slid LID] [--port-num N] [--state nop|drop|init|forwarding]\n"
	"      [--trap-lid LID] [--trap-sl SL]\n"
	"                     what an EM writes: ClassPortInfo's trap LID/SL,\n"
	"                     then VeswPortInfo's vESW part and vport part\n"
	"                     (read, change what is given, write; the SLID\n"
	"                     defaults to LID).  Creates the vport.\n"
	"  macset LID [--vport N] [--offset I] [--digest D] ENTRY...\n"
	"                     MAC table entries from index I (default 0), 11\n"
	"                     a MAD; ENTRY is MAC=DLID, or DLID alone for the\n"
	"                     locally administered MAC of that LID on the\n"
	"                     vport's vESW (docs/vnic-datapath.md).\n"
	"  delete LID [--vport N]               DeleteVesw: back to defaults\n"
	"  key LID [--new-key HEX [--lease S]]\n"
	"                     EMKeyInfo: whether a key is held (shown only\n"
	"                     to --key that is it), its lease, the Sets\n"
	"                     refused; --new-key sets it (0: none)\n"
	"  raw LID [--method M] [--attr A] [--amod M] [--base-version V]\n"
	"      [--class-version V] [--oui O] [--len N] [--data HEX]\n"
	"                     one request as given (fault injection); prints\n"
	"                     the answer's status\n"
	"\n"
	COMMON_TEXT
	"\n"
	"exit status: 0 done, 1 no port / no answer / no endpoint at a LID\n"
	"given, 2 bad usage, 3 an endpoint answered with an error status.\n"
	"\n"
	"  -h, --help      this text (after a command: that command's)\n"
	"  -V, --version   the version\n"
	"\n"
	SIMULATOR_TEXT;
/* COMMAND --help ends with these too */
static const char command_help_tail[] = "\n" COMMON_TEXT "\n"
	SIMULATOR_TEXT "\n'vfabric-em --help' lists every command.\n";

static int bad_usage(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static int bad_usage(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "vfabric-em: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'vfabric-em --help'.\n");
	return EM_EXIT_USAGE;
}

static const struct option long_opts[] = {
	{ "ca", required_argument, NULL, EO_CA },
	{ "port", required_argument, NULL, EO_PORT },
	{ "sm-lid", required_argument, NULL, EO_SM_LID },
	{ "timeout", required_argument, NULL, EO_TIMEOUT },
	{ "retries", required_argument, NULL, EO_RETRIES },
	{ "json", no_argument, NULL, EO_JSON },
	{ "vport", required_argument, NULL, EO_VPORT },
	{ "vesw", required_argument, NULL, EO_VESW },
	{ "fabric", required_argument, NULL, EO_FABRIC },
	{ "pkey", required_argument, NULL, EO_PKEY },
	{ "mtu", required_argument, NULL, EO_MTU },
	{ "mac", required_argument, NULL, EO_MAC },
	{ "slid", required_argument, NULL, EO_SLID },
	{ "port-num", required_argument, NULL, EO_PORT_NUM },
	{ "state", required_argument, NULL, EO_STATE },
	{ "mcast-dlid", required_argument, NULL, EO_MCAST_DLID },
	{ "default-dlid", required_argument, NULL, EO_DEFAULT_DLID },
	{ "trap-lid", required_argument, NULL, EO_TRAP_LID },
	{ "trap-sl", required_argument, NULL, EO_TRAP_SL },
	{ "offset", required_argument, NULL, EO_OFFSET },
	{ "digest", required_argument, NULL, EO_DIGEST },
	{ "method", required_argument, NULL, EO_METHOD },
	{ "attr", required_argument, NULL, EO_ATTR },
	{ "amod", required_argument, NULL, EO_AMOD },
	{ "base-version", required_argument, NULL, EO_BASE_VERSION },
	{ "class-version", required_argument, NULL, EO_CLASS_VERSION },
	{ "oui", required_argument, NULL, EO_OUI },
	{ "len", required_argument, NULL, EO_LEN },
	{ "data", required_argument, NULL, EO_DATA },
	{ "max-lid", required_argument, NULL, EO_MAX_LID },
	{ "key", required_argument, NULL, EO_KEY },
	{ "new-key", required_argument, NULL, EO_NEW_KEY },
	{ "lease", required_argument, NULL, EO_LEASE },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

_Static_assert(sizeof(long_opts) / sizeof(long_opts[0]) == EO_NOPTS + 2,
	       "long_opts must list the options in enum em_opt order");

#define O(x) (1ull << (x))
#define COMMON (O(EO_CA) | O(EO_PORT) | O(EO_SM_LID) | O(EO_TIMEOUT) | \
		O(EO_RETRIES) | O(EO_KEY))

static const struct command {
	const char *name;
	uint64_t opts;
	unsigned min_args;		/* positional */
	bool one_lid;			/* the first is the only LID */
	int (*run)(struct em *e, const struct em_opts *o);
} commands[] = {
	{ "probe", COMMON | O(EO_MAX_LID), 0, false, cmd_probe },
	{ "show", COMMON | O(EO_MAX_LID) | O(EO_JSON) | O(EO_VPORT), 0,
	  false, cmd_show },
	{ "macs", COMMON | O(EO_JSON) | O(EO_VPORT), 1, true, cmd_macs },
	{ "counters", COMMON | O(EO_JSON) | O(EO_VPORT), 1, true,
	  cmd_counters },
	{ "set", COMMON | O(EO_VPORT) | O(EO_VESW) | O(EO_FABRIC) |
	  O(EO_PKEY) | O(EO_MTU) | O(EO_MAC) | O(EO_SLID) | O(EO_PORT_NUM) |
	  O(EO_STATE) | O(EO_MCAST_DLID) | O(EO_DEFAULT_DLID) |
	  O(EO_TRAP_LID) | O(EO_TRAP_SL), 1, true, cmd_set },
	{ "macset", COMMON | O(EO_VPORT) | O(EO_OFFSET) | O(EO_DIGEST), 2,
	  false, cmd_macset },
	{ "delete", COMMON | O(EO_VPORT), 1, true, cmd_delete },
	{ "raw", COMMON | O(EO_METHOD) | O(EO_ATTR) | O(EO_AMOD) |
	  O(EO_BASE_VERSION) | O(EO_CLASS_VERSION) | O(EO_OUI) | O(EO_LEN) |
	  O(EO_DATA), 1, true, cmd_raw },
	{ "key", COMMON | O(EO_NEW_KEY) | O(EO_LEASE), 1, true, cmd_key },
};

static int number(const char *s, unsigned long long min,
		  unsigned long long max, unsigned long long *v)
{
	char *end;

	if (!*s || *s == '-')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return *end || errno || *v < min || *v > max ? -1 : 0;
}

static int parse_mac(const char *s, uint8_t mac[6])
{
	unsigned v[6];
	char c;

	if (strlen(s) != 17 ||
	    sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x%c", &v[0], &v[1], &v[2], &v[3],
		   &v[4], &v[5], &c) != 6)
		return -1;
	for (int i = 0; i < 6; i++)
		mac[i] = (uint8_t)v[i];
	return mac[0] & 1 ? -1 : 0;
}

static int parse_state(const char *s, uint8_t *st)
{
	static const char *const names[] = { "nop", "drop", "init",
					     "forwarding" };

	for (uint8_t i = 0; i < 4; i++)
		if (!strcmp(s, names[i])) {
			*st = i;
			return 0;
		}
	return -1;
}

static int parse_hex(const char *s, struct em_opts *o)
{
	size_t n = strlen(s);

	if (n % 2 || n / 2 > sizeof(o->data))
		return -1;
	for (size_t i = 0; i < n / 2; i++) {
		unsigned b;

		if (sscanf(s + 2 * i, "%2x", &b) != 1)
			return -1;
		o->data[i] = (uint8_t)b;
	}
	o->data_len = (unsigned)(n / 2);
	return 0;
}

/* A key: 1-16 hex digits, 0x optional. */
static int parse_key(const char *s, uint64_t *k)
{
	const char *d = strncmp(s, "0x", 2) && strncmp(s, "0X", 2) ? s : s + 2;
	size_t n = strspn(d, "0123456789abcdefABCDEF");

	if (!n || n > 16 || d[n])
		return -1;
	*k = strtoull(d, NULL, 16);
	return 0;
}

static int set_option(int opt, const char *arg, struct em_opts *o)
{
	static const struct {
		int opt;
		unsigned long long min, max;
	} limits[] = {
		{ EO_PORT, 0, 254 }, { EO_SM_LID, 1, EM_MAX_LID },
		{ EO_TIMEOUT, 1, 3600000 }, { EO_RETRIES, 0, 100 },
		{ EO_VPORT, 0, 255 }, { EO_VESW, 0, 4095 },
		{ EO_FABRIC, 0, 1023 }, { EO_PKEY, 0, 0xffff },
		{ EO_MTU, 0, VF_EMA_MAX_MTU }, { EO_SLID, 0, 0xffffff },
		{ EO_PORT_NUM, 0, 0xffffffff }, { EO_MCAST_DLID, 0, 0xffffff },
		{ EO_DEFAULT_DLID, 1, 0xffffff }, { EO_TRAP_LID, 0, 0xffff },
		{ EO_TRAP_SL, 0, 15 }, { EO_OFFSET, 0, VF_VPORT_MAC_TABLE - 1 },
		{ EO_DIGEST, 0, 0xffffffff }, { EO_METHOD, 0, 0xff },
		{ EO_ATTR, 0, 0xffff }, { EO_AMOD, 0, 0xffffffff },
		{ EO_BASE_VERSION, 0, 0xff }, { EO_CLASS_VERSION, 0, 0xff },
		{ EO_OUI, 0, 0xffffff }, { EO_LEN, 1, VF_EMA_MAD_SIZE },
		{ EO_MAX_LID, 1, EM_MAX_LID }, { EO_LEASE, 0, 0xffff },
	};
	unsigned long long v = 0;
	size_t i;

	switch (opt) {
	case EO_CA: o->ca = arg; return 0;
	case EO_JSON: o->json = true; return 0;
	case EO_MAC:
		return parse_mac(arg, o->mac) ?
			bad_usage("--mac wants a unicast MAC xx:xx:xx:xx:xx:xx, not '%s'",
				  arg) : 0;
	case EO_STATE:
		return parse_state(arg, &o->state) ?
			bad_usage("--state wants nop, drop, init or forwarding, not '%s'",
				  arg) : 0;
	case EO_KEY:
	case EO_NEW_KEY:
		return parse_key(arg, opt == EO_KEY ? &o->key : &o->new_key) ?
			bad_usage("--%s wants 1-16 hex digits", long_opts[opt].name) :
			0;
	case EO_DATA:
		return parse_hex(arg, o) ?
			bad_usage("--data wants hex bytes (at most %d), not '%s'",
				  VF_EMA_DATA_SIZE, arg) : 0;
	}
	for (i = 0; i < sizeof(limits) / sizeof(limits[0]); i++)
		if (limits[i].opt == opt)
			break;
	if (number(arg, limits[i].min, limits[i].max, &v))
		return bad_usage("--%s takes a number from %llu to %llu, not '%s'",
				 long_opts[opt].name, limits[i].min,
				 limits[i].max, arg);
	switch (opt) {
	case EO_PORT: o->port = (int)v; break;
	case EO_SM_LID: o->sm_lid = (unsigned)v; break;
	case EO_TIMEOUT: o->timeout_ms = (int)v; break;
	case EO_RETRIES: o->retries = (int)v; break;
	case EO_VPORT: o->vport = (unsigned)v; break;
	case EO_VESW: o->vesw = (uint16_t)v; break;
	case EO_FABRIC: o->fabric = (uint16_t)v; break;
	case EO_PKEY: o->pkey = (uint16_t)v; break;
	case EO_MTU: o->mtu = (uint16_t)v; break;
	case EO_SLID: o->slid = (uint32_t)v; break;
	case EO_PORT_NUM: o->port_num = (uint32_t)v; break;
	case EO_MCAST_DLID: o->mcast_dlid = (uint32_t)v; break;
	case EO_DEFAULT_DLID:
		if (o->n_default == VF_VPORT_DEFAULT_PORTS)
			return bad_usage("--default-dlid: at most %d",
					 VF_VPORT_DEFAULT_PORTS);
		o->default_dlid[o->n_default++] = (uint32_t)v;
		break;
	case EO_TRAP_LID: o->trap_lid = (uint32_t)v; break;
	case EO_TRAP_SL: o->trap_sl = (uint8_t)v; break;
	case EO_OFFSET: o->offset = (unsigned)v; break;
	case EO_DIGEST: o->digest = (uint32_t)v; break;
	case EO_METHOD: o->method = (uint8_t)v; break;
	case EO_ATTR: o->attr = (uint16_t)v; break;
	case EO_AMOD: o->amod = (uint32_t)v; break;
	case EO_BASE_VERSION: o->base_version = (uint8_t)v; break;
	case EO_CLASS_VERSION: o->class_version = (uint8_t)v; break;
	case EO_OUI: o->oui = (uint32_t)v; break;
	case EO_LEN: o->len = (unsigned)v; break;
	case EO_MAX_LID: o->max_lid = (unsigned)v; break;
	case EO_LEASE: o->lease = (uint16_t)v; break;
	}
	return 0;
}

static int parse(int argc, char **argv, const struct command *cmd,
		 struct em_opts *o)
{
	unsigned long long v;
	int ch, rc;

	memset(o, 0, sizeof(*o));
	o->timeout_ms = 1500;
	o->retries = 1;
	o->max_lid = EM_MAX_LID;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "C:P:h", long_opts, NULL)) != -1) {
		if (ch == 'h') {
			fputs(usage_text, stdout);
			exit(0);
		}
		if (ch == 'C')
			ch = EO_CA;
		else if (ch == 'P')
			ch = EO_PORT;
		else if (ch < 0 || ch >= EO_NOPTS)
			return EM_EXIT_USAGE;	/* getopt said why */
		if (!(cmd->opts & O(ch)))
			return bad_usage("%s takes no --%s", cmd->name,
					 long_opts[ch].name);
		o->given |= O(ch);
		rc = set_option(ch, optarg, o);
		if (rc)
			return rc;
	}
	o->args = argv + optind;
	o->nargs = (unsigned)(argc - optind);
	if (o->nargs < cmd->min_args)
		return bad_usage("%s needs %s", cmd->name,
				 cmd->min_args > 1 ? "a LID and entries" :
						     "a LID");
	if (cmd->one_lid && o->nargs > 1)
		return bad_usage("%s takes one LID, not '%s' too", cmd->name,
				 o->args[1]);
	if (o->nargs > EM_MAX_LIDS)
		return bad_usage("at most %d LIDs", EM_MAX_LIDS);
	/* the LIDs: all for probe/show, the first for the others */
	for (unsigned i = 0; i < o->nargs; i++) {
		if (i && !strcmp(cmd->name, "macset"))
			break;		/* entries, checked there */
		if (number(o->args[i], 1, EM_MAX_LID, &v))
			return bad_usage("'%s' is not a unicast LID (1-0x%x)",
					 o->args[i], EM_MAX_LID);
	}
	if (!strcmp(cmd->name, "set") && em_given(o, EO_VESW) && !o->vesw)
		return bad_usage("--vesw 0 is no vESW (1-4095)");
	if (em_given(o, EO_LEASE) && !em_given(o, EO_NEW_KEY))
		return bad_usage("--lease goes with --new-key");
	if (em_given(o, EO_MTU) && o->mtu && o->mtu < VF_VPORT_MIN_MTU)
		return bad_usage("--mtu wants %d-%d", VF_VPORT_MIN_MTU,
				 VF_EMA_MAX_MTU);
	return 0;
}

int main(int argc, char **argv)
{
	const struct command *cmd = NULL;
	struct em_opts o;
	struct em e;
	int rc;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2)
		return bad_usage("which command? (probe, show, macs, counters, set, macset, delete, key, raw)");
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		fputs(usage_text, stdout);
		return 0;
	}
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
		printf("vfabric-em (opensm-vfabric) %s\n", PACKAGE_VERSION);
		return 0;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			cmd = &commands[i];
	if (!cmd)
		return bad_usage("unknown command '%s'", argv[1]);
	if (vf_wants_help(argc - 1, argv + 1)) {
		vf_command_help(usage_text, "vfabric-em", cmd->name);
		fputs(command_help_tail, stdout);
		return 0;
	}
	rc = parse(argc - 1, argv + 1, cmd, &o);
	if (rc)
		return rc;
	if (em_open(&e, &o) < 0)
		return EM_EXIT_TRANSPORT;
	rc = cmd->run(&e, &o);
	em_close(&e);
	fflush(stdout);
	return rc;
}
