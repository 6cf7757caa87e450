// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * The keys the plugin gives its agents: the AR_Key of the switches and
 * the EM key of the VNIC endpoints (docs/threat-model.md).  OpenSM prints
 * the start of event_plugin_options to stdout and syslog when it reads
 * opensm.conf, so a key written there is not secret: ar_key_file= and
 * em_key_file= name a file (root's only) holding it instead.
 */
#include <opensm/osm_config.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plugin/plugin.h"
#include "common/log.h"

#define KEY_LINE 80

/* The key of the file's first line (hex, 0x optional, blanks around);
 * 0 or -1 after logging why not. */
static int read_key_file(const char *what, const char *option,
			 const char *path, uint64_t *key)
{
	char line[KEY_LINE], *p, *end;
	struct stat st;
	FILE *f = fopen(path, "re");
	unsigned long long k;

	if (!f) {
		vf_log(VF_LOG_ERROR,
		       "ERR VF0114: %s_file: cannot read %s: %s", option, path,
		       strerror(errno));
		return -1;
	}
	if (!fstat(fileno(f), &st) && (st.st_mode & (S_IRWXG | S_IRWXO))) {
		vf_log(VF_LOG_WARN,
		       "%s_file: %s can be read by others (mode %03o): anyone who reads it can take over the %s; chmod 600 it",
		       option, path, (unsigned)(st.st_mode & 0777), what);
		fprintf(stderr,
			"opensm-vfabric: warning: %s_file: %s can be read by others (mode %03o); chmod 600 it\n",
			option, path, (unsigned)(st.st_mode & 0777));
	}
	p = fgets(line, sizeof(line), f);
	fclose(f);
	if (p) {
		p += strspn(p, " \t");
		if (!strncmp(p, "0x", 2) || !strncmp(p, "0X", 2))
			p += 2;
		errno = 0;
		k = strtoull(p, &end, 16);
		end += strspn(end, " \t\r\n");
		if (end != p && !*end && !errno && end - p <= 18 && k) {
			*key = k;
			return 0;
		}
	}
	vf_log(VF_LOG_ERROR,
	       "ERR VF0114: %s_file: %s:1: not a key (1 to 16 hex digits, not 0, on the first line)",
	       option, path);
	return -1;
}

uint64_t vf_management_key(const char *what, const char *option,
			   uint64_t configured, const char *file)
{
	uint64_t k = 0;
	int fd;

	if (file && !read_key_file(what, option, file, &k))
		return k;
	if (file)
		vf_log(VF_LOG_ERROR,
		       "ERR VF0114: %s_file: the %s is %s", option, what,
		       configured ? "the inline one instead" :
		       "a random one of this start instead");
	if (configured)
		return configured;
	while (getrandom(&k, sizeof(k), 0) != (ssize_t)sizeof(k) || !k) {
		if (errno == EINTR)
			continue;
		fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
		if (fd >= 0 && read(fd, &k, sizeof(k)) == (ssize_t)sizeof(k) &&
		    k) {
			close(fd);
			break;
		}
		if (fd >= 0)
			close(fd);
		/* fail visibly rather than with a key anyone could guess */
		vf_log(VF_LOG_ERROR,
		       "ERR VF0125: no random source for the %s: the agents get none and check only that Sets come from the master SM's port; set %s",
		       what, option);
		return 0;
	}
	return k;
}
