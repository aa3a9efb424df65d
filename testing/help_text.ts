/**
 * Reads help text as a person does: the commands of its Examples section, each joined back onto
 * one line (a wrapped one continues after ` \`).
 *
 * @module
 */
export function examples(help: string): string[] {
  const block = `\n${help}`.split("\nExamples:\n")[1].split("\n\n")[0];
  return block.replace(/ \\\n +/g, " ").split("\n").map((line) => line.trim());
}
