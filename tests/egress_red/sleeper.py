# lab:title: Does nothing, slowly (another user forges its evidence meanwhile)
# lab:threat: exfil
# lab:layer: network
# lab:consequence: none.
import time
time.sleep(3)
print("I only slept")
