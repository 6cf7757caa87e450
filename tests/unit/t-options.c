// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/* event_plugin_options parsing: good settings, and every kind of bad one. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "plugin/options.h"
#include "taptest.h"

static char last[512];
static unsigned logged;

static void capture(void *ctx, enum vf_log_level level, const char *msg)
{
	snprintf(last, sizeof(last), "%s", msg);
	logged++;
}

/* dg_<name>= and routing_order=: good settings, then every kind of bad one. */
static void test_groups(void)
{
	struct vf_options o;
	const char *unknown = NULL;

	vf_options_default(&o);
	EQ_U(o.num_dgs + o.num_routing_order, 0, "no groups, no order");
	EQ_U(vf_options_parse(&o, "routing_order=storage:admin "
			      "dg_storage=desc:stor*,0x20,0x10 "
			      "dg_admin=desc:admin*,desc:mgmt?"), 0,
	     "an order naming groups defined after it");
	EQ_U(o.num_dgs, 2, "two groups");
	EQ_U(o.num_routing_order, 2, "the order is resolved");
	EQ_S(o.routing_order[0].name, "storage", "storage first");
	EQ_S(o.routing_order[1].name, "admin", "admin second");
	EQ_U(o.routing_order[0].guids.count, 2, "storage: two GUIDs");
	OK(o.routing_order[0].guids.guids[0] == 0x10 &&
	   o.routing_order[0].guids.guids[1] == 0x20, "kept sorted");
	EQ_U(o.routing_order[0].num_patterns, 1, "storage: one pattern");
	EQ_S(vf_ndpat_text(o.routing_order[0].desc_patterns[0]), "stor*",
	     "without desc:");
	EQ_U(o.routing_order[1].num_patterns, 2, "admin: two patterns");
	EQ_S(vf_ndpat_text(o.routing_order[1].desc_patterns[1]), "mgmt?",
	     "second pattern");

	EQ_U(vf_options_parse(&o, "dg_storage=0x30"), 0, "redefine a group");
	EQ_U(o.num_dgs, 2, "replaced, not added");
	EQ_U(o.num_routing_order, 2, "the order is resolved again");
	OK(o.routing_order[0].guids.count == 1 &&
	   o.routing_order[0].guids.guids[0] == 0x30 &&
	   !o.routing_order[0].num_patterns, "and sees the new definition");

	logged = 0;
	EQ_U(vf_options_parse(&o, "dg_=0x1 dg_a:b=0x1 dg_x= dg_x=0x1,,0x2 "
			      "dg_x=0x1, dg_x=desc: dg_x=zz dg_x=0 "
			      "dg_x=0x12g dg_storage=0x5,bad"), 10,
	     "ten bad groups");
	EQ_U(logged, 10, "each logged once");
	OK(strstr(last, "ERR VF0102") && strstr(last, "dg_storage") &&
	   strstr(last, "'0x5,bad'"), "the bad group is named with its value");
	EQ_U(o.num_dgs, 2, "no group added");
	OK(o.dgs[0].guids.count == 1 && o.dgs[0].guids.guids[0] == 0x30,
	   "a bad redefinition keeps the previous group");
	EQ_U(o.num_routing_order, 2, "the order still stands");

	/* one NodeDesc matcher: dg_ patterns are the vFabric file's */
	logged = 0;
	EQ_U(vf_options_parse(&o, "dg_storage=desc:stor[a-c]*"), 1,
	     "a shell glob's character class is no NodeDesc pattern");
	OK(logged == 1 && strstr(last, "ERR VF0102") &&
	   strstr(last, "NodeDesc pattern 'stor[a-c]*': column "),
	   "refused, with the pattern and the column at fault");
	OK(o.dgs[0].guids.count == 1 && o.dgs[0].guids.guids[0] == 0x30,
	   "the previous group stands");

	logged = 0;
	EQ_U(vf_options_parse(&o, "routing_order= routing_order=a::b "
			      "routing_order=a: routing_order=:a "
			      "routing_order=a:a "
			      "routing_order=a:b:c:d:e:f:g:h:i"), 6,
	     "six bad orders");
	EQ_U(logged, 6, "each logged once");
	OK(strstr(last, "routing_order") && strstr(last, "'a:b:c:d:e:f:g:h:i'"),
	   "the bad order is named with its value");
	OK(o.num_routing_order == 2 &&
	   !strcmp(o.routing_order[0].name, "storage"),
	   "a bad order keeps the previous one");
	EQ_U(vf_options_parse(&o, "routing_order=a:b:c:d:e:f:g:h "
			      "dg_a=0x1 dg_b=0x2 dg_c=0x3 dg_d=0x4 dg_e=0x5 "
			      "dg_f=0x6 dg_g=0x7 dg_h=desc:x"), 0,
	     "eight groups are fine");
	EQ_U(o.num_routing_order, 8, "all eight in the order");

	logged = 0;
	EQ_U(vf_options_parse(&o, "routing_order=storage:nosuch:admin"), 1,
	     "an order naming an undefined group");
	OK(strstr(last, "ERR VF0102") && strstr(last, "'nosuch'"),
	   "the undefined group is named");
	EQ_U(o.num_routing_order, 0, "no order is applied");
	EQ_U(vf_options_parse(&o, "log_level=info"), 0,
	     "reported once, not again on the next line");
	EQ_U(logged, 1, "one message");

	EQ_U(vf_options_set_routing_order(&o, "admin:ghost"), 0,
	     "set an order directly");
	OK(vf_options_resolve_order(&o, &unknown) == -ENOENT &&
	   unknown && !strcmp(unknown, "ghost"),
	   "resolving it: -ENOENT, names the undefined group");
	EQ_U(vf_options_set_dg(&o, "ghost", "desc:g*"), 0, "define it");
	EQ_U(o.num_routing_order, 0, "a new group unresolves the order");
	OK(!vf_options_resolve_order(&o, &unknown) &&
	   o.num_routing_order == 2, "now it resolves");
	EQ_U(vf_options_set_dg(&o, "bad name", "0x1"), (uint64_t)-EINVAL,
	     "set_dg: a bad name is -EINVAL");
	EQ_U(vf_options_set_dg(&o, "ok", "0x1,desc:"), (uint64_t)-EINVAL,
	     "set_dg: a bad item is -EINVAL");
	vf_options_free(&o);
	OK(!o.num_dgs && !o.dgs && !o.num_routing_order &&
	   !o.num_order_names && !o.order_text, "free empties everything");
}

/* metrics_file=PATH: off by default, an absolute path, the last wins. */
static void test_metrics_file(void)
{
	struct vf_options o;

	vf_options_default(&o);
	OK(!o.metrics_file, "metrics_file: off by default");
	EQ_U(vf_options_parse(&o, "metrics_file=/tmp/a.prom "
			      "metrics_file=/tmp/b.prom"), 0,
	     "metrics_file given twice");
	EQ_S(o.metrics_file, "/tmp/b.prom", "the last one wins");
	logged = 0;
	EQ_U(vf_options_parse(&o, "metrics_file=rel.prom metrics_file="), 2,
	     "a relative path and an empty one are problems");
	EQ_U(logged, 2, "each logged once");
	OK(strstr(last, "ERR VF0102") && strstr(last, "metrics_file"),
	   "the bad value is named with its setting");
	EQ_S(o.metrics_file, "/tmp/b.prom", "the path before is kept");
	vf_options_free(&o);
	OK(!o.metrics_file, "free forgets it");
}

/* Does the described line hold the pair "key=value" (a whole token)? */
static bool has_pair(const char *line, const char *pair)
{
	size_t n = strlen(pair);

	for (const char *at = line; (at = strstr(at, pair)); at++)
		if ((at == line || at[-1] == ' ') && (!at[n] || at[n] == ' '))
			return true;
	return false;
}

/* The settings in effect, as the plugin logs them at start. */
static void test_describe(void)
{
	struct vf_options o;
	char *line;

	vf_options_default(&o);
	line = vf_options_describe(&o);
	OK(line && has_pair(line, "log_level=info") &&
	   has_pair(line, "check_routes=on") && has_pair(line, "config=-") &&
	   has_pair(line, "on_config_error=last-good") &&
	   has_pair(line, "sa_record_budget=262144") &&
	   has_pair(line, "ar_key=<random>") &&
	   has_pair(line, "hop_matrices=plugin") &&
	   has_pair(line, "metrics_file=-"),
	   "defaults described: levels, files, budgets, random keys");
	free(line);
	vf_options_parse(&o, "log_level=warn ar_key=0x5eC12e7 em_key_file=/k "
			 "dg_st=desc:stor*,0x2 routing_order=st "
			 "check_routes=maybe path_selection=pairwise ar_frequency=3 "
			 "metrics_file=/var/lib/node_exporter/vf.prom");
	line = vf_options_describe(&o);
	OK(line && has_pair(line, "log_level=warn") &&
	   has_pair(line, "check_routes=on") &&
	   has_pair(line, "dg_st=0x2,desc:stor*") &&
	   has_pair(line, "routing_order=st") &&
	   has_pair(line, "path_selection=Pairwise") &&
	   has_pair(line, "ar_frequency=3") &&
	   has_pair(line, "ar_threshold=-") &&
	   has_pair(line, "em_key=<file>") && has_pair(line, "em_key_file=/k") &&
	   has_pair(line, "metrics_file=/var/lib/node_exporter/vf.prom"),
	   "given settings described as applied, a bad value as its default");
	OK(line && !strstr(line, "5ec12e7") && !strstr(line, "5eC12e7") &&
	   has_pair(line, "ar_key=<hidden>"), "a key's value is never described");
	free(line);
	vf_options_free(&o);
}

int main(void)
{
	struct vf_options o;

	vf_log_set_sink(capture, NULL);
	vf_options_default(&o);
	EQ_U(o.log_level, VF_LOG_INFO, "default log level info");
	OK(o.check_routes, "route checks on by default");

	EQ_U(vf_options_parse(&o, NULL), 0, "NULL options are fine");
	EQ_U(vf_options_parse(&o, "  \t "), 0, "blank options are fine");
	EQ_U(vf_options_parse(&o, "log_level=debug check_routes=off"), 0,
	     "two good settings");
	EQ_U(o.log_level, VF_LOG_DEBUG, "log_level=debug applied");
	OK(!o.check_routes, "check_routes=off applied");

	OK(!o.config && !o.spine_first_given,
	   "no config file and spine_first not given by default");
	EQ_U(vf_options_parse(&o, "config=/etc/opensm/vf.xml spine_first=off"),
	     0, "config= and spine_first= accepted");
	EQ_S(o.config, "/etc/opensm/vf.xml", "config path kept");
	OK(o.spine_first_given && !o.spine_first,
	   "spine_first=off marked as given (wins over the config file)");
	EQ_U(vf_options_parse(&o, "config="), 1, "an empty config= is refused");
	EQ_U(o.config_poll, 5, "the config file is looked at every 5 s by default");
	EQ_U(vf_options_parse(&o, "config_poll=0 disconnect_unconfigured=on"), 0,
	     "config_poll=0 and disconnect_unconfigured=on accepted");
	OK(o.config_poll == 0 && o.disconnect_unconfigured,
	   "config_poll off, disconnect_unconfigured on");
	EQ_U(vf_options_parse(&o, "config_poll=soon"), 1,
	     "a config_poll that is not a number is refused");
	OK(o.config_settle == 2 && o.on_config_error == VF_ON_ERROR_LAST_GOOD,
	   "by default a changed file settles 2 s; at start a bad one falls back to the last good");
	EQ_U(vf_options_parse(&o, "config_settle=0 on_config_error=deny"), 0,
	     "config_settle=0 and on_config_error=deny accepted");
	OK(o.config_settle == 0 && o.on_config_error == VF_ON_ERROR_DENY,
	   "settle off, deny");
	EQ_U(vf_options_parse(&o, "on_config_error=OPEN config_settle=60"), 0,
	     "on_config_error=OPEN (any case) and config_settle=60 accepted");
	OK(o.config_settle == 60 && o.on_config_error == VF_ON_ERROR_OPEN,
	   "settle 60 s, open");
	EQ_U(vf_options_parse(&o, "on_config_error=last-good"), 0,
	     "on_config_error=last-good accepted");
	EQ_U(vf_options_parse(&o, "config_settle=61 on_config_error=closed"), 2,
	     "config_settle over 60 and an unknown on_config_error refused");
	OK(o.config_settle == 60 && o.on_config_error == VF_ON_ERROR_LAST_GOOD,
	   "both keep what they were");
	EQ_S(o.config, "/etc/opensm/vf.xml", "the earlier path is kept");
	OK(!o.opensm_hops, "the plugin builds the min-hop matrices by default");
	EQ_U(vf_options_parse(&o, "hop_matrices=OpenSM"), 0,
	     "hop_matrices=opensm (any case) accepted");
	OK(o.opensm_hops, "... OpenSM builds them");
	EQ_U(vf_options_parse(&o, "hop_matrices=ours"), 1,
	     "hop_matrices other than plugin or opensm refused");
	OK(o.opensm_hops, "... the setting kept");
	EQ_U(vf_options_parse(&o, "hop_matrices=plugin"), 0,
	     "hop_matrices=plugin accepted");
	OK(!o.opensm_hops, "... the plugin builds them");
	EQ_U(o.sa_record_budget, 262144,
	     "by default a requester port may have 262,144 records built a second");
	EQ_U(vf_options_parse(&o, "sa_record_budget=0"), 0,
	     "sa_record_budget=0 (no limit) accepted");
	EQ_U(o.sa_record_budget, 0, "no limit");
	EQ_U(vf_options_parse(&o, "sa_record_budget=-1 sa_record_budget=1x "
			      "sa_record_budget=4294967296"), 3,
	     "a negative, non-numeric or too large sa_record_budget refused");
	EQ_U(o.sa_record_budget, 0, "... and the setting kept");
	OK(o.em_key == 0 && o.em_key_lease == 60,
	   "em_key 0 (a random one at start) and a lease of 60 s by default");
	EQ_U(vf_options_parse(&o, "em_key=0xFEEDface12345678 em_key_lease=0"),
	     0, "em_key in hex with 0x, em_key_lease=0 (never runs out)");
	OK(o.em_key == 0xfeedface12345678ull && o.em_key_lease == 0,
	   "... both taken");
	EQ_U(vf_options_parse(&o, "em_key=2a"), 0, "em_key without 0x");
	EQ_U(o.em_key, 0x2a, "... taken");
	EQ_U(vf_options_parse(&o, "em_key=0x em_key=12345678901234567 "
			      "em_key=xyz em_key=-1 em_key_lease=65536 "
			      "em_key_lease=1s"), 6,
	     "an empty, 17-digit, non-hex or negative em_key and a lease "
	     "past 16 bits or not a number refused");
	OK(o.em_key == 0x2a && o.em_key_lease == 0, "... the settings kept");

	logged = 0;
	EQ_U(vf_options_parse(&o, "colour=blue check_routes=YES"), 1,
	     "unknown key is one problem");
	OK(o.check_routes, "the good setting after it still applies");
	OK(strstr(last, "ERR VF0102") && strstr(last, "'colour'"),
	   "unknown key is named with its code");

	EQ_U(vf_options_parse(&o, "check_routes=maybe"), 1, "bad value");
	OK(o.check_routes, "bad value keeps the previous setting");
	OK(strstr(last, "'maybe'") && strstr(last, "check_routes"),
	   "bad value is named with its key");

	EQ_U(vf_options_parse(&o, "novalue =x log_level=warn"), 2,
	     "token without '=' and empty key");
	EQ_U(o.log_level, VF_LOG_WARN, "later good setting applies");
	OK(strstr(last, "'=x'") != NULL, "empty key is shown");
	EQ_U(logged, 4, "every problem logged once");

	/* a key's value in no log line, typed with a blank around '=' too */
	EQ_U(vf_options_parse(&o, "ar_key= 0xDEADBEEFCAFE0001"), 2,
	     "ar_key with a blank after '=': two problems");
	OK(!strstr(last, "DEADBEEF"), "... the value is not in the log");
	EQ_U(vf_options_parse(&o, "ar_key =0xDEADBEEFCAFE0002"), 2,
	     "ar_key with a blank before '=': two problems");
	OK(!strstr(last, "DEADBEEF"), "... the value is not in the log");
	EQ_U(vf_options_parse(&o, "ar_key=0xDEADBEEFCAFE00032"), 1,
	     "a 17-digit ar_key refused");
	OK(!strstr(last, "DEADBEEF") && strstr(last, "ar_key"),
	   "... named, its value not shown");
	{
		char *shown = vf_options_redacted(
			"ar_key= 0xDEAD ar_key =0xBEEF AR_KEY=0xCAFE "
			"em_key=1 log_level=info");

		EQ_S(shown, "ar_key=<hidden> <hidden> <hidden> <hidden> "
		     "AR_KEY=<hidden> em_key=<hidden> log_level=info",
		     "the logged options line hides every key's value, "
		     "also after a stray blank and in capitals");
		free(shown);
		shown = vf_options_redacted("em_key = 0x5555 ar_key == 0x6666 "
					    "em_key:0x7777 ar_key_file=/k x = 1");
		EQ_S(shown, "<hidden> <hidden> <hidden> <hidden> <hidden> "
		     "<hidden> <hidden> ar_key_file=/k x = 1",
		     "hidden also with a blank on both sides of '=', and "
		     "after 'em_key:'; a key file's path and others shown");
		free(shown);
	}
	EQ_U(vf_options_parse(&o, "em_key = 0xDEADBEEFCAFE0004"), 3,
	     "em_key with blanks on both sides of '=': three problems");
	OK(!strstr(last, "DEADBEEF"), "... the value is not in the log");
	EQ_U(vf_options_parse(&o, "em_key:0xDEADBEEFCAFE0005"), 1,
	     "em_key:VALUE is a problem");
	OK(!strstr(last, "DEADBEEF"), "... the value is not in the log");

	EQ_U(vf_options_parse(&o, "core_switches=0x20,0x10,0x2c900000001"), 0,
	     "a GUID list");
	EQ_U(o.core_switches.count, 3, "three core switches");
	OK(o.core_switches.guids[0] == 0x10 && o.core_switches.guids[2] ==
	   0x2c900000001, "kept sorted");
	EQ_U(vf_options_parse(&o, "route_last=0x10,zz core_switches=0x5,"), 2,
	   "a bad GUID and an empty one are problems");
	EQ_U(o.route_last.count, 0, "a bad list is not applied");
	EQ_U(o.core_switches.count, 3, "the previous list is kept");
	OK(strstr(last, "core_switches") != NULL, "the bad list is named");
	vf_options_free(&o);
	EQ_U(o.core_switches.count, 0, "free empties the lists");
	test_metrics_file();
	test_groups();
	test_describe();
	vf_log_set_sink(NULL, NULL);
	return tap_done();
}
