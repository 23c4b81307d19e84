#!/usr/bin/env bash
# The workbench beside a kept stack: `make demo KEEP=1` starts `retrieval serve` in the background and
# prints the page's URL; `make down` stops it with the stack.
#   bash dev/workbench.sh start [port]    bash dev/workbench.sh stop
set -u
pid_file=.stack/serve.pid
log_file=.stack/serve.log
ready_tries=100

case "${1:-}" in
  start)
    port="${2:-3000}"
    bash "$0" stop
    mkdir -p .stack
    nohup .venv/bin/retrieval serve --port "$port" >"$log_file" 2>&1 &
    echo $! >"$pid_file"
    for _ in $(seq "$ready_tries"); do
      if curl -s -o /dev/null "http://127.0.0.1:$port/"; then
        echo
        echo "The workbench: http://127.0.0.1:$port/   (token dev:acme; 'make down' stops it and the stack)"
        exit 0
      fi
      kill -0 "$(cat "$pid_file")" 2>/dev/null || break
      sleep 0.2
    done
    echo "retrieval serve did not start on port $port (see $log_file): is the port taken?" \
      "Try: make demo KEEP=1 WORKBENCH_PORT=<free port>" >&2
    exit 1
    ;;
  stop)
    if [ -f "$pid_file" ]; then
      kill "$(cat "$pid_file")" 2>/dev/null
      rm -f "$pid_file"
    fi
    ;;
  *)
    echo "usage: bash dev/workbench.sh start [port] | stop" >&2
    exit 2
    ;;
esac
