import { type TaskDefinition, type TaskFieldError, TaskInputError } from "./define.ts";

/** The registered kinds of a runner, and the check of a request against them. */
export interface TaskKinds {
  readonly names: readonly string[];
  /**
   * The definition of `kind` once `input` passes its schema; throws a {@link TaskInputError}
   * naming each bad field (under `field`) or the unknown kind.
   */
  validate(kind: string, input: unknown, field?: string): TaskDefinition;
}

/**
 * The kinds of `definitions`, by name.
 *
 * @example
 * ```ts
 * import { demoTask } from "./demo.ts";
 * const kinds = taskKinds([demoTask]);
 * kinds.validate("demo", { steps: 1 }); // demoTask
 * ```
 */
export function taskKinds(definitions: readonly TaskDefinition[]): TaskKinds {
  const byKind = new Map(definitions.map((d) => [d.kind, d]));
  const validate = (kind: string, input: unknown, field = "input"): TaskDefinition => {
    const definition = byKind.get(kind);
    if (!definition) {
      const known = [...byKind.keys()].join(", ");
      throw new TaskInputError(`Unknown task kind '${kind}'`, [
        { field: "kind", message: `Unknown task kind '${kind}'; use one of: ${known}` },
      ]);
    }
    const parsed = definition.input.safeParse(input ?? {});
    if (!parsed.success) {
      const errors: TaskFieldError[] = parsed.error.issues.map((i) => ({
        field: [field, ...i.path.map(String)].join("."),
        message: i.message,
      }));
      throw new TaskInputError(`Invalid input for task kind '${kind}'`, errors);
    }
    return definition;
  };
  return { names: [...byKind.keys()], validate };
}
