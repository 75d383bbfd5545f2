# expect: memory
# output: memory limit of 64 MiB
# Ten 8 MB answers at once: what the program has not taken yet counts
# toward the run's memory in the host, as its worker's heap does there.
import asyncio
r = await asyncio.gather(*[tools.big() for _ in range(10)])
len(r)
