// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/* event_plugin_options parsing: good settings, and every kind of bad one. */
#include "plugin/options.h"
#include "tap.h"

static char last[512];
static unsigned logged;

static void capture(void *ctx, enum vf_log_level level, const char *msg)
{
	snprintf(last, sizeof(last), "%s", msg);
	logged++;
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
	vf_log_set_sink(NULL, NULL);
	return tap_done();
}
