#!/bin/sh
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
# Generate ./configure from a git checkout.
set -e
cd "$(dirname "$0")"
autoreconf -fi
