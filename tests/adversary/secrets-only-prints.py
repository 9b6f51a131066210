# lab:title: Declares secret theft, only prints
# lab:threat: secrets
# lab:layer: env
# lab:consequence: test
# adversary: --on all => CONTAINED env ~ cannot see
# adversary: --on env => CONTAINED env ~ cannot see
# adversary: --off env => BROKE
"""Never looks at the environment or ~/.aws. Reading os.environ is no
system call and a look for a file that is not there leaves nothing the lab
watches: the lab cannot tell this from a real attempt. With Clean-env on
it keeps its rule (nothing was there to take: CONTAINED) and says in the
evidence that it could not see an attempt; with Clean-env off the secrets
were in reach and none came out: BROKE."""
print("nothing to see here", flush=True)
