// A program against examples/manifest.json's tools:
//   ptc run --tools examples/manifest.json examples/manifest.ts
const [stats, greeting, missing] = await Promise.all([
  tools.text_stats({ text: "one two three\nfour five\nsix" }),
  tools.env_var({ name: "GREETING" }),
  tools.env_var({ name: "NO_SUCH_VARIABLE" }).catch((e: ToolCallError) => e.code),
]);
console.log(`${stats.words} words on ${stats.lines} lines, longest: ${stats.longest}`);
return { greeting, missing, today: (await tools.today({})).length };
