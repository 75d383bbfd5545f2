# expect: memory
# output: waiting or in flight count toward it
import asyncio
s = 'x' * (1 << 20)
await asyncio.gather(*[tools.echo(s=s) for _ in range(2500)])
