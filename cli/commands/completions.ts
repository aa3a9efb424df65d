import { Argument, Command, type CommandUnknownOpts } from "@commander-js/extra-typings";

type TabCommand = Parameters<typeof import("@bomb.sh/tab/commander").default>[0];

/**
 * `ctl completions <shell>` and the hidden `ctl complete -- <words…>` that the scripts call.
 * Both load `@bomb.sh/tab` only when used, and hand over to a fresh command tree that tab has
 * walked, so completions always match the real commands.
 */
export function completionCommands(freshProgram: () => CommandUnknownOpts): CommandUnknownOpts[] {
  const dispatch = async (argv: string[]) => {
    const { default: tab } = await import("@bomb.sh/tab/commander");
    const program = freshProgram();
    tab(program as unknown as TabCommand, { completionCommandName: "completions" });
    await program.parseAsync(argv, { from: "user" });
  };
  const completions = new Command("completions")
    .summary("print a shell completion script")
    .addArgument(
      new Argument("<shell>", "shell to complete in").choices(["bash", "zsh", "fish", "powershell"] as const),
    )
    .addHelpText(
      "after",
      `
Examples:
  ctl completions bash > ~/.local/share/bash-completion/completions/ctl
  ctl completions zsh > "\${fpath[1]}/_ctl"
  ctl completions fish > ~/.config/fish/completions/ctl.fish`,
    )
    .action((shell) => dispatch(["completions", shell]));
  const complete = new Command("complete")
    .description("print completion candidates (called by the completion scripts)")
    .argument("[words...]")
    .allowUnknownOption()
    .action((words) => dispatch(["complete", "--", ...words]));
  return [completions, complete];
}
