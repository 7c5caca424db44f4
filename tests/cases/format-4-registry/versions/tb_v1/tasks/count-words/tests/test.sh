#!/bin/bash
# Graded inside the task's container after the agent has finished.
set -euo pipefail
test "$(cat /app/count.txt)" = "10"
