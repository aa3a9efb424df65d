import { StoreCtlError } from "../../lib/errors/mod.ts";
import { COMPLETE_COMMAND } from "../framework/app.ts";
import { arg } from "../framework/params.ts";
import { command } from "../framework/spec.ts";

/** Each script asks `ctl __complete -- <words…>` (the parser's own proposals) for the last word. */
const SCRIPTS: Record<string, string> = {
  bash: `# bash completion for ctl (needs the bash-completion package)
__ctl_complete() {
  local IFS=$'\\n'
  COMPREPLY=($(ctl ${COMPLETE_COMMAND} -- "\${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null))
}
complete -o default -F __ctl_complete ctl
`,
  zsh: `#compdef ctl
# zsh completion for ctl
_ctl() {
  local -a proposals
  proposals=("\${(@f)$(ctl ${COMPLETE_COMMAND} -- "\${(@)words[2,$CURRENT]}" 2>/dev/null)}")
  compadd -a proposals
}
compdef _ctl ctl
`,
  fish: `# fish completion for ctl
function __ctl_complete
    set -l words (commandline -opc) (commandline -ct)
    ctl ${COMPLETE_COMMAND} -- $words[2..-1] 2>/dev/null
end
complete -c ctl -f -a '(__ctl_complete)'
`,
};

/** `ctl completions <shell>`: prints a completion script. */
export default command({
  summary: "print a shell completion script",
  args: [arg.choice("shell", "shell to complete in", ["bash", "zsh", "fish"])],
  examples: [
    "ctl completions bash > ~/.local/share/bash-completion/completions/ctl",
    `ctl completions zsh > "\${fpath[1]}/_ctl"`,
    "ctl completions fish > ~/.config/fish/completions/ctl.fish",
  ],
  run({ args: [shell] }, f) {
    const script = SCRIPTS[shell];
    if (!script) throw new StoreCtlError("internal", `No completion script for ${shell}`);
    f.ctx.stdout.write(script);
    return Promise.resolve();
  },
});
