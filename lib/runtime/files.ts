import { readFile } from "node:fs/promises";
import { homedir } from "node:os";

/** The content of a text file, or undefined when it does not exist. */
export async function readTextFileIfExists(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    if ((error as { code?: string }).code === "ENOENT") return undefined;
    throw error;
  }
}

/** The user's home directory. */
export function homeDir(): string {
  return homedir();
}
