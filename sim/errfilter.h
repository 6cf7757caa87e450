/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * Drop one exact line from our own stderr, counted, and pass every other
 * line on.  Why: umad2sim 0.10 (ibsim's LD_PRELOAD library) prints
 * "ERR: received data size 320 larger than requested buf size 288" for
 * every MAD an agent receives.  Its receiver thread keeps each packet in
 * a 288-byte buffer (the 64-byte umad header and 224 bytes of MAD) but
 * records its size as 320 (header + 256); read() complains when asked
 * for less and copies 320 bytes, 32 past that buffer, when asked for 320.
 * So agents ask for 288 (sim/umadsim.h's VF_UMADSIM_RECV_LEN) and the
 * line, which then says nothing wrong, is dropped here; any other size in
 * it, and any other message, still shows.
 */
#ifndef VF_ERRFILTER_H
#define VF_ERRFILTER_H

#include <stdint.h>

/* The line umad2sim prints for every MAD received with that length. */
#define VF_UMAD2SIM_SIZE_LINE \
	"ERR: received data size 320 larger than requested buf size 288"

/*
 * Route fd 2 through a thread that drops lines equal to line (without
 * its newline) and counts them in *dropped; 0 or -errno (stderr then
 * stays as it was).
 */
int vf_errfilter_start(const char *line, volatile uint64_t *dropped);

#endif /* VF_ERRFILTER_H */
