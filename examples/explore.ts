// ptc's main job on the built-in workspace tools: explore this repository.
//
//   cargo run --release -- run examples/explore.ts
//
// The body of an async function, as a model would write it: independent
// read-only calls overlap in Promise.all, and only the summary comes back.

async function rustFiles(dir: string): Promise<string[]> {
  const entries = await tools.list_dir({ path: dir });
  const nested = await Promise.all(
    entries.map(async (entry) => {
      const path = `${dir}/${entry.name}`;
      if (entry.type === "dir") return rustFiles(path);
      return entry.name.endsWith(".rs") ? [path] : [];
    }),
  );
  return nested.flat();
}

const [sources, tests, unitTests, integrationTests, readme] = await Promise.all([
  rustFiles("src"),
  rustFiles("tests"),
  tools.search_files({ pattern: "^\\s*#\\[(tokio::)?test\\b", path: "src" }),
  tools.search_files({ pattern: "^\\s*#\\[(tokio::)?test\\b", path: "tests" }),
  tools.read_file({ path: "README.md", limit: 3 }),
]);

const files = [...sources, ...tests];
const texts = await Promise.all(files.map((path) => tools.read_file({ path })));
const lines = (text: string) => text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
const perFile = files.map((path, i) => ({ path, lines: lines(texts[i]) }));
const total = perFile.reduce((sum, f) => sum + f.lines, 0);
const largest = [...perFile].sort((a, b) => b.lines - a.lines).slice(0, 3);

return [
  `${sources.length} Rust files in src/, ${tests.length} in tests/: ${total} lines`,
  `largest: ${largest.map((f) => `${f.path} (${f.lines})`).join(", ")}`,
  `${unitTests.length} unit tests in src/, ${integrationTests.length} integration tests in tests/`,
  "README.md begins:",
  readme.trimEnd(),
].join("\n");
