"""Starts `receipts serve` for the benchmark scripts (scripts/bench, scripts/bench-serve)."""
import os, re, subprocess, sys, time


def start_serve(binary, workers, store, log_path, env):
    """`receipts serve` on a free port of 127.0.0.1 with a fresh store at `store`, its log in
    `log_path`: (process, base URL). Exits the script with the log's end when it does not start."""
    log = open(log_path, "w+")
    server = subprocess.Popen([binary, "serve", "--port", "0", "--workers", str(workers), "--store", store,
                               "--max-upload-mb", "100"], stdout=subprocess.DEVNULL, stderr=log, env=env)
    for _ in range(300):
        log.seek(0)
        m = re.search(r"http\.url=(http://127\.0\.0\.1:\d+)", log.read())
        if m:
            return server, m.group(1)
        time.sleep(0.1)
    server.terminate()
    log.seek(0)
    sys.exit("receipts serve did not start: " + log.read()[-500:])
