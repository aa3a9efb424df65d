import { Argument, Command, type CommandUnknownOpts, Option } from "@commander-js/extra-typings";
import {
  type ConfigDocument,
  type Deployment,
  listProfiles,
  maskSecrets,
  type ProfileRecord,
  removeProfile,
  requireProfile,
  selectProfile,
  serializeConfig,
  setDefault,
  setProfile,
} from "../../lib/config/mod.ts";
import { StoreCtlError } from "../../lib/errors/mod.ts";
import { applyQuery, render } from "../../lib/output/mod.ts";
import type { CliContext } from "../context.ts";
import { type GlobalOptions, loadConfig, outputTarget } from "../session.ts";

const CLOUD_KEYS = ["api_key", "api_secret", "api_url"];
const ENTERPRISE_KEYS = ["url", "username", "password", "insecure", "ca_cert"];

/** `ctl profile …`: stored credentials in the config file. */
export function profileCommand(ctx: CliContext): CommandUnknownOpts {
  const profile = new Command("profile").summary("manage stored profiles (credentials and endpoints)");
  const globalsOf = (command: CommandUnknownOpts) => command.optsWithGlobals() as unknown as GlobalOptions;

  /** Prints data through the global -o / -q / --raw options. */
  const show = async (options: GlobalOptions, data: unknown) => {
    const shown = options.query ? applyQuery(data, options.query) : data;
    ctx.stdout.write(
      await render(shown, { format: outputTarget(options).format, raw: options.raw, isTTY: ctx.stdout.isTTY }),
    );
  };
  /** Loads, changes and writes the config atomically with mode 0600. */
  const update = async (options: GlobalOptions, change: (doc: ConfigDocument) => ConfigDocument) => {
    const { path, doc } = await loadConfig(ctx, options);
    await ctx.writeFileAtomic(path, serializeConfig(change(doc)), { mode: 0o600 });
    return path;
  };

  profile.command("set")
    .summary("create or update a profile")
    .argument("<name>", "profile name")
    .addOption(
      new Option("--deployment <type>", "cloud or enterprise (needed for a new profile)").choices(
        ["cloud", "enterprise"] as const,
      ),
    )
    .option("--api-key <key>", "cloud API key")
    .option("--api-secret <secret>", "cloud API secret")
    .option("--api-url <url>", "cloud API base URL, ending in /v1")
    .option("--url <url>", "enterprise cluster URL, e.g. https://cluster:9443")
    .option("--username <user>", "enterprise username")
    .option("--password <password>", "enterprise password")
    .option("--files-api-key <key>", "upload key for support packages")
    .addHelpText(
      "after",
      `
The global --insecure and --ca-cert <file> options are stored too (enterprise).
Values may be \${VAR} or \${VAR:-default} (expanded when read) or keyring:<name>.
Updating a profile keeps its other keys; comments in the file are not kept.

Examples:
  ctl profile set prod --deployment cloud --api-key "$KEY" --api-secret '\${PROD_SECRET}' --api-url https://api.example.com/v1
  ctl profile set lab --deployment enterprise --url https://lab:9443 --username admin@example.com --password 'p@ss' --insecure`,
    )
    .action(async (name, options, command) => {
      const globals = globalsOf(command);
      const fields: ProfileRecord = {
        deployment_type: options.deployment,
        api_key: options.apiKey,
        api_secret: options.apiSecret,
        api_url: options.apiUrl,
        url: options.url,
        username: options.username,
        password: options.password,
        ...(globals.insecure && { insecure: true }),
        ca_cert: globals.caCert,
        files_api_key: options.filesApiKey,
      };
      const path = await update(globals, (doc) => {
        const type = options.deployment ?? doc.profiles?.[name]?.deployment_type;
        const wrong = type === "cloud" ? ENTERPRISE_KEYS : type === "enterprise" ? CLOUD_KEYS : [];
        const misplaced = wrong.find((key) => fields[key] !== undefined);
        if (misplaced) {
          throw new StoreCtlError("usage", `--${misplaced.replace("_", "-")} does not apply to a ${type} profile`);
        }
        return setProfile(doc, name, fields);
      });
      ctx.stderr.write(`Saved profile '${name}' in ${path}\n`);
    });

  profile.command("list")
    .summary("list profiles (no secrets)")
    .action(async (_options, command) => {
      const globals = globalsOf(command);
      await show(globals, listProfiles((await loadConfig(ctx, globals)).doc));
    });

  profile.command("show")
    .summary("show one profile, secrets masked")
    .argument("<name>", "profile name")
    .action(async (name, _options, command) => {
      const globals = globalsOf(command);
      const record = requireProfile((await loadConfig(ctx, globals)).doc, name);
      await show(globals, { name, ...maskSecrets({ ...record }) });
    });

  profile.command("path")
    .summary("print the config file's location")
    .action(async (_options, command) => {
      ctx.stdout.write(`${(await loadConfig(ctx, globalsOf(command))).path}\n`);
    });

  profile.command("default")
    .summary("make a profile the default for its deployment type")
    .argument("<name>", "profile name")
    .action(async (name, _options, command) => {
      await update(globalsOf(command), (doc) => setDefault(doc, name));
      ctx.stderr.write(`'${name}' is now the default profile of its deployment type\n`);
    });

  profile.command("remove")
    .summary("delete a profile")
    .argument("<name>", "profile name")
    .action(async (name, _options, command) => {
      await update(globalsOf(command), (doc) => removeProfile(doc, name));
      ctx.stderr.write(`Removed profile '${name}'\n`);
    });

  profile.command("current")
    .summary("show which profile each deployment type would use, and why")
    .addArgument(new Argument("[deployment]", "only this deployment type").choices(["cloud", "enterprise"] as const))
    .action(async (deployment, _options, command) => {
      const globals = globalsOf(command);
      const { doc } = await loadConfig(ctx, globals);
      const types: Deployment[] = deployment ? [deployment] : ["cloud", "enterprise"];
      await show(
        globals,
        types.map((type) => {
          const selected = selectProfile({ deployment: type, doc, env: ctx.env, profile: globals.profile });
          return { deployment: type, profile: selected?.name ?? null, reason: selected?.how ?? "environment only" };
        }),
      );
    });
  return profile;
}
