#!/bin/bash
# Graded inside the task's container after the agent has finished.
set -euo pipefail
cd /app/logs
test -f service.log && test ! -s service.log
test "$(stat -c %a service.log)" = "640"
test "$(gzip -dc service.log.1.gz | wc -l)" = "500"
test ! -e service.log.1
