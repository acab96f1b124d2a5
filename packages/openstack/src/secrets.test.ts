// Secrets (passwords, application-credential secrets, tokens) never appear in logs, error
// messages, or the JSON / string / inspect forms of any client object.
import { ManualClock } from '@noderepair/core/testing';
import * as E from 'fp-ts/lib/Either.js';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { FAKE_DEFAULTS, FakeOpenStack } from './testing/index.js';
import { createOpenStackClient, openStackClientFromCloudsYaml } from './client.js';
import { parseCloudsYaml } from './clouds-yaml.js';
import { OpenStackError } from './errors.js';
import { redact, Secret } from './secret.js';

const PASSWORD = FAKE_DEFAULTS.user.password;
const APP_SECRET = FAKE_DEFAULTS.applicationCredential.secret;

function everyForm(x: unknown): string {
  const forms = [inspect(x, { depth: 10, showHidden: true }), JSON.stringify(x) ?? ''];
  try {
    forms.push(String(x));
  } catch {
    // objects without toString
  }
  if (x instanceof Error) forms.push(x.message, x.stack ?? '');
  return forms.join('\n');
}

function expectClean(text: string, secrets: readonly string[]) {
  for (const s of secrets) expect(text).not.toContain(s);
}

function capture() {
  const lines: string[] = [];
  const log = (obj: Record<string, unknown>, msg: string) =>
    lines.push(`${msg} ${JSON.stringify(obj)} ${inspect(obj, { depth: 10 })}`);
  return { lines, logger: { debug: log, warn: log } };
}

describe('Secret', () => {
  it('redacts itself in every printable form and reveals on request', () => {
    const s = new Secret('hunter2-and-more');
    expectClean(everyForm(s), ['hunter2-and-more']);
    expectClean(`${s}`, ['hunter2-and-more']);
    expectClean(JSON.stringify({ nested: { s } }), ['hunter2-and-more']);
    expect(s.reveal()).toBe('hunter2-and-more');
  });

  it('redact() removes secrets from arbitrary text', () => {
    expect(redact('a hunter2-x b hunter2-x', [new Secret('hunter2-x')])).toBe(
      'a [REDACTED] b [REDACTED]',
    );
  });
});

describe('secrets never leak', () => {
  it('from a parsed CloudConfig', () => {
    const fake = new FakeOpenStack();
    for (const auth of ['password', 'application_credential'] as const) {
      const cloud = parseCloudsYaml(fake.cloudsYaml({ auth }), 'openstack');
      if (E.isLeft(cloud)) throw new Error(cloud.left);
      expectClean(everyForm(cloud.right), [PASSWORD, APP_SECRET]);
    }
  });

  it('from the session, the Nova client and the logs, including the token', async () => {
    for (const auth of ['password', 'application_credential'] as const) {
      const fake = new FakeOpenStack({ transitionDelayMs: 0 });
      const { logger, lines } = capture();
      const client = openStackClientFromCloudsYaml(
        fake.cloudsYaml({ auth }),
        'openstack',
        undefined,
        {
          transport: fake.transport,
          logger,
          clock: new ManualClock(Date.now(), { sleepAdvances: true }),
        },
      );
      const id = fake.addServer();
      fake.failNext(1, { status: 503, service: 'compute' });
      await client.nova.getServer(id); // retried after the 503: a warning in the log
      fake.failNext(1, { status: 503, service: 'compute' });
      // Not retried (it may have been forwarded): ActionMaybeSent, whose text is checked too.
      const lost = await client.nova.reboot(id, 'SOFT').catch((e: unknown) => e);
      lines.push(String(lost), JSON.stringify(lost));
      fake.revokeTokens();
      await client.nova.getServer(id);
      const tokens = [...fake.identity.tokens.keys()];
      expect(tokens.length).toBe(2);
      const secrets = [PASSWORD, APP_SECRET, ...tokens];
      expect(lines.length).toBeGreaterThan(3);
      expectClean(lines.join('\n'), secrets);
      expectClean(everyForm(client), secrets);
      expectClean(everyForm(client.session), secrets);
      expectClean(everyForm(client.nova), secrets);
    }
  });

  it('from errors, even when a server echoes the password back', async () => {
    const fake = new FakeOpenStack();
    const cloud = parseCloudsYaml(fake.cloudsYaml(), 'openstack');
    if (E.isLeft(cloud)) throw new Error(cloud.left);
    // A broken proxy that answers every compute call with the request's secrets in it.
    let seenToken = '';
    const client = createOpenStackClient(cloud.right, {
      clock: new ManualClock(Date.now(), { sleepAdvances: true }),
      transport: async (req) => {
        if (req.url.includes('/auth/tokens')) return fake.transport(req);
        seenToken = req.headers['X-Auth-Token'] ?? '';
        return new Response(
          JSON.stringify({ badRequest: { message: `bad: ${PASSWORD} ${seenToken}` } }),
          { status: 400 },
        );
      },
    });
    let err: unknown;
    try {
      await client.nova.getServer('00000000-0000-0000-0000-000000000001');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(OpenStackError);
    expect(seenToken).not.toBe('');
    expect((err as Error).message).toContain('[REDACTED]');
    expectClean(everyForm(err), [PASSWORD, seenToken]);
  });

  it('from authentication failures', async () => {
    const fake = new FakeOpenStack();
    const yaml = fake.cloudsYaml().replace(PASSWORD, 'not-the-password-42');
    const client = openStackClientFromCloudsYaml(yaml, 'openstack', undefined, {
      transport: fake.transport,
    });
    const err = await client.nova.getServer(fake.addServer()).catch((e: unknown) => e);
    expect((err as OpenStackError).code).toBe('AuthFailed');
    expectClean(everyForm(err), ['not-the-password-42', PASSWORD]);
  });

  it('from clouds.yaml errors: type errors and YAML syntax errors', () => {
    const typeError = parseCloudsYaml(
      `clouds:\n  openstack:\n    auth:\n      auth_url: https://k/v3\n      password: [s3cret-in-a-list]\n      username: u\n`,
      'openstack',
    );
    expect(E.isLeft(typeError) && typeError.left).toMatch(/clouds\.openstack\.auth\.password/);
    expectClean(JSON.stringify(typeError), ['s3cret-in-a-list']);
    const syntax = parseCloudsYaml(
      `clouds:\n  openstack:\n    auth:\n      password: "s3cret-unterminated\n`,
      'openstack',
    );
    expect(E.isLeft(syntax) && syntax.left).toMatch(/not valid YAML .*line/);
    expectClean(JSON.stringify(syntax), ['s3cret-unterminated']);
  });
});
