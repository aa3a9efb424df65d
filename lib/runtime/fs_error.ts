import { StoreCtlError } from "../errors/mod.ts";

/** What went wrong, and what to do, for each errno code both runtimes report as `error.code`. */
const REASONS: Readonly<Record<string, readonly [reason: string, fix: string]>> = {
  ENOENT: ["no such file or directory", "check the path"],
  EACCES: ["permission denied", "choose a path you may write to, or change its permissions"],
  EPERM: ["operation not permitted", "choose a path you may write to, or change its permissions"],
  EROFS: ["the file system is read-only", "choose a path on a writable file system"],
  EISDIR: ["it is a directory", "give a file path"],
  ENOTDIR: ["a part of the path is not a directory", "check the path"],
  ENOSPC: ["no space left on the device", "free some space or choose another file system"],
  EDQUOT: ["the disk quota is exceeded", "free some space or choose another file system"],
  ENAMETOOLONG: ["the name is too long", "choose a shorter file name"],
  ELOOP: ["too many levels of symbolic links", "check the links along the path"],
  EEXIST: ["it already exists", "choose another path"],
  EBUSY: ["the file is busy", "try again once the other program is done with it"],
  EMFILE: ["too many open files", "close other programs or raise the limit (ulimit -n)"],
  EIO: ["an input/output error occurred", "check the device, or choose another path"],
};

/** The errno code of a runtime error (`ENOENT`, …), if it has one. */
export function errnoCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown })?.code;
  return typeof code === "string" ? code : undefined;
}

/**
 * A file-system failure as a `StoreCtlError` (code `filesystem`) naming the operation, the path
 * and the fix; anything without an errno code is passed through.
 *
 * @example
 * ```ts
 * import { fileSystemError } from "./fs_error.ts";
 * const error = fileSystemError(Object.assign(new Error("x"), { code: "EROFS" }), "write", "/mnt/ro/a.tgz");
 * // error.message: "Cannot write /mnt/ro/a.tgz: the file system is read-only"
 * ```
 */
export function fileSystemError(error: unknown, action: string, path: string): unknown {
  if (error instanceof StoreCtlError) return error;
  const code = errnoCode(error);
  if (!code || !/^E[A-Z]+$/.test(code)) return error;
  const [reason, fix] = REASONS[code] ??
    [(error as Error).message.replace(/ \(os error \d+\).*$/, ""), "check the path"];
  return new StoreCtlError("filesystem", `Cannot ${action} ${path}: ${reason} (${code})`, {
    cause: error,
    tips: [fix.charAt(0).toUpperCase() + fix.slice(1)],
  });
}
