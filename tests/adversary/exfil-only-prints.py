# lab:title: Declares exfiltration, only prints (and fakes the error)
# lab:threat: exfil
# lab:layer: network
# lab:consequence: test
# adversary: --on network => BROKE ~ no attempt
# adversary: --on all => BROKE ~ no attempt
# adversary: --off network => BROKE
"""Issue 17, item 5: no connect(), no sendto(), no request: it prints what
a refused upload would print, down to the exception's last line. The
trace sees every connect(); the lab believes the trace, not the words."""
import sys

print("POST http://attacker.invalid/ (Content-Type: text/csv)", flush=True)
print("urllib.error.URLError: <urlopen error [Errno 101] Network is unreachable>", flush=True)
sys.exit(1)
