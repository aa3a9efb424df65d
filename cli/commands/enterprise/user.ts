import { createUser, getUser, listUsers } from "../../../lib/enterprise/mod.ts";
import { StoreCtlError } from "../../../lib/errors/mod.ts";
import { flag } from "../../framework/params.ts";
import { type Column, command, group } from "../../framework/spec.ts";
import { one, requestBody, requireFields, uidArg } from "./common.ts";
import { DATA_FLAG } from "../input.ts";

const LIST = "ctl enterprise user list";

const COLUMNS: readonly Column[] = [
  { header: "UID", value: "uid" },
  { header: "NAME", value: "name" },
  { header: "EMAIL", value: "email" },
  { header: "ROLE", value: "role" },
  { header: "AUTH", value: "auth_method" },
  { header: "STATUS", value: "status" },
];

const list = command({
  summary: "list the cluster's users",
  output: { columns: COLUMNS, empty: "No users" },
  examples: ["ctl enterprise user list", "ctl enterprise user list -q '[].email' --raw"],
  async run(_input, f) {
    return await listUsers(await f.enterprise());
  },
});

const get = command({
  summary: "show one user",
  args: [uidArg("user", "the user's numeric id", LIST)],
  output: { columns: COLUMNS },
  examples: ["ctl enterprise user get 2"],
  async run({ args: [uid] }, f) {
    return await one(getUser(await f.enterprise(), uid), LIST);
  },
});

const create = command({
  summary: "create a user",
  description: `Create a user. --email and a password are required (or "email" and "password" in -d).
--password-stdin reads the password from standard input, which keeps it out of the shell's history
and the process list; the cluster never shows it again.`,
  flags: {
    email: flag.string("the user's email address, which they sign in with", { placeholder: "address" }),
    password: flag.string("the password (visible to other local users while ctl runs)", { placeholder: "password" }),
    passwordStdin: flag.boolean("read the password from standard input"),
    name: flag.string("display name (default: the email address)", { placeholder: "name" }),
    role: flag.string("management role, e.g. db_viewer, db_member, admin", { placeholder: "role" }),
    data: DATA_FLAG,
  },
  output: { columns: COLUMNS },
  examples: [
    "ctl enterprise user create --email ops@example.com --password-stdin --role db_member < password.txt",
    `ctl enterprise user create -d @user.json`,
  ],
  async run({ flags }, f) {
    if (flags.password !== undefined && flags.passwordStdin) {
      throw new StoreCtlError("usage", "Give either --password or --password-stdin, not both");
    }
    const password = flags.passwordStdin
      ? new TextDecoder().decode(await f.ctx.stdin.readAll()).replace(/\r?\n$/, "")
      : flags.password;
    if (flags.passwordStdin && password === "") {
      throw new StoreCtlError("usage", "--password-stdin read an empty password from standard input");
    }
    const body = await requestBody(f, flags.data, { email: flags.email, password, name: flags.name, role: flags.role });
    requireFields(body, { email: "--email", password: "--password or --password-stdin" });
    return await createUser(await f.enterprise(), body as { email: string; password: string });
  },
});

/** `ctl enterprise user …`: the cluster's users. */
export default group("manage the cluster's users", { list, get, create });
