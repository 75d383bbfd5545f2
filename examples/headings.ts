// The headings of every Markdown file at the top of a workspace, read in
// parallel: `ptc run --workspace docs examples/headings.ts`.

const entries = await tools.list_dir({ path: "." });
const pages = entries.filter((e) => e.type === "file" && e.name.endsWith(".md"));
const texts = await Promise.all(pages.map((page) => tools.read_file({ path: page.name })));
return pages.map((page, i) => {
  const headings = texts[i].split("\n").filter((line) => /^##? /.test(line));
  return `${page.name}: ${headings.length} headings, first ${JSON.stringify(headings[0] ?? "")}`;
});
