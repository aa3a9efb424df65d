/**
 * What a standalone `ctl` binary must do on a machine with nothing else: copied alone into an
 * empty folder (no `node_modules`, no checkout, neither `deno` nor the project on `PATH`), run
 * from another empty folder with a fresh `HOME`. Used by `binary_compile_test.ts` (`deno
 * compile`) and `binary_sea_test.ts` (the Node single executable).
 *
 * @module
 */
import { VERSION } from "../lib/version/mod.ts";
import { assert, assertEquals, assertMatch } from "../testing/assert.ts";
import { startEmulator } from "../testing/emulator_process.ts";

/** A run of the binary. */
export interface BinaryRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** The binary copied into a folder of its own, and how to run it from an empty folder. */
export interface Standalone {
  /** The copy's path. */
  readonly binary: string;
  /** The empty folder it runs in (files it downloads land here). */
  readonly cwd: string;
  run(args: string[], env?: Record<string, string>): Promise<BinaryRun>;
}

/** Copies `binary` into `${dir}/bin/` and runs it from `${dir}/work` with `HOME=${dir}/home`. */
export async function standalone(binary: string, dir: string): Promise<Standalone> {
  for (const sub of ["bin", "work", "home"]) await Deno.mkdir(`${dir}/${sub}`, { recursive: true });
  const copy = `${dir}/bin/${binary.slice(binary.lastIndexOf("/") + 1)}`;
  await Deno.copyFile(binary, copy);
  await Deno.chmod(copy, 0o755);
  const cwd = `${dir}/work`;
  return {
    binary: copy,
    cwd,
    async run(args, env = {}) {
      const out = await new Deno.Command(copy, {
        args,
        // System tools only (`df`): not /usr/local/bin, where deno is.
        env: { PATH: "/usr/bin:/bin", HOME: `${dir}/home`, ...env },
        clearEnv: true,
        cwd,
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).output();
      const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
      return { code: out.code, stdout: decode(out.stdout), stderr: decode(out.stderr) };
    },
  };
}

/**
 * `--version`, an API call over TLS, a support-package download in the foreground and one with
 * `--no-wait` (the binary starts itself again), and a `keyring:` value: `keyring` says whether the
 * binary holds the keyring addon ("bundled") or must say, only then, that it has none ("absent").
 */
export async function standaloneChecks(
  t: Deno.TestContext,
  ctl: Standalone,
  keyring: "bundled" | "absent",
): Promise<void> {
  await using emulator = await startEmulator(["--tls", "--debuginfo-mb", "1"]);
  const caFile = `${ctl.cwd}/../emulator-ca.pem`;
  await Deno.writeTextFile(caFile, emulator.caCert!);
  const enterprise = {
    STORE_ENTERPRISE_URL: emulator.enterpriseUrl,
    STORE_ENTERPRISE_USER: "admin@example.com",
    STORE_ENTERPRISE_PASSWORD: "demo-password",
    STORE_ENTERPRISE_CA_CERT: caFile,
  };
  const ok = (r: BinaryRun) => {
    assertEquals(r.code, 0, `exit ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
    assert(!/keyring/i.test(r.stderr), `no word of a keyring unless one is asked for:\n${r.stderr}`);
    return r;
  };

  await t.step("--version", async () => {
    assertEquals(ok(await ctl.run(["--version"])).stdout, `${VERSION}\n`);
  });

  await t.step("an API call over TLS, with a query", async () => {
    const client = Deno.createHttpClient({ caCerts: [emulator.caCert!] });
    const expected = await fetch(`${emulator.enterpriseUrl}/v1/bdbs`, {
      client,
      headers: { authorization: `Basic ${btoa("admin@example.com:demo-password")}` },
    }).then((res) => res.json());
    client.close();
    const r = ok(await ctl.run(["api", "enterprise", "get", "/v1/bdbs", "-q", "[].name", "-o", "json"], enterprise));
    assertEquals(JSON.parse(r.stdout), expected.map((bdb: { name: string }) => bdb.name));
  });

  await t.step("a support package, downloaded", async () => {
    const r = ok(
      await ctl.run(["enterprise", "support-package", "node", "1", "--file", "sp.tgz", "-o", "json"], enterprise),
    );
    const bytes = await Deno.readFile(`${ctl.cwd}/sp.tgz`);
    assertEquals([bytes[0], bytes[1]], [0x1f, 0x8b], "gzip");
    assertEquals(JSON.parse(r.stdout).file_size, bytes.length);
  });

  await t.step("a support package with --no-wait: the binary runs itself in the background", async () => {
    const args = ["enterprise", "support-package", "node", "2", "--no-wait", "--file", "bg.tgz", "-o", "json"];
    const { task_id } = JSON.parse(ok(await ctl.run(args, enterprise)).stdout);
    let job = { status: "in_progress", result: { file_size: -1 } };
    for (let i = 0; i < 120 && job.status === "in_progress"; i++) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      job = JSON.parse(ok(await ctl.run(["enterprise", "support-package", "status", task_id, "-o", "json"])).stdout);
    }
    assertEquals(job.status, "completed", JSON.stringify(job));
    assertEquals(job.result.file_size, (await Deno.stat(`${ctl.cwd}/bg.tgz`)).size);
  });

  await t.step(`a keyring: value (the keyring addon ${keyring === "bundled" ? "is inside" : "is not"})`, async () => {
    const config = `${ctl.cwd}/../keyring.toml`;
    await Deno.writeTextFile(
      config,
      `[profiles.k]\ndeployment_type = "cloud"\napi_key = "demo-key"\napi_secret = "keyring:storectl-test-missing"\n` +
        `api_url = "${emulator.cloudUrl}"\n`,
    );
    const r = await ctl.run(["api", "cloud", "get", "/regions"], { STORE_CONFIG_FILE: config });
    assertEquals(r.code, 3, r.stderr);
    assertMatch(
      r.stderr,
      keyring === "bundled"
        ? /keyring entry 'storectl-test-missing', which does not exist/
        : /keyring entry 'storectl-test-missing': The system keyring is not available: @napi-rs\/keyring is not part of/,
    );
    // Without the addon, a running Secret Service would not help: the error says what would.
    if (keyring === "absent") assert(!/Secret Service/.test(r.stderr), r.stderr);
  });
}
