#!/bin/bash
# Graded inside the task's container after the agent has finished.
set -euo pipefail
test "$(head -n 1 /app/people.csv)" = "first_name,last_name,age"
test "$(tail -n +2 /app/people.csv)" = "$(printf 'Ada,Lovelace,36\nAlan,Turing,41')"
