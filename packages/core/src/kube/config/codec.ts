// The kubeconfig file format (clientcmd's v1 Config), decoded strictly: a misspelt field is an
// error naming it and its path, never a silently ignored setting. exec and auth-provider are
// opaque here: they are handed whole to @kubernetes/client-node, which runs the plugins.
import * as t from 'io-ts';

const extensions = t.array(t.unknown);

const cluster = t.partial({
  server: t.string,
  'tls-server-name': t.string,
  'insecure-skip-tls-verify': t.boolean,
  'certificate-authority': t.string,
  'certificate-authority-data': t.string,
  'proxy-url': t.string,
  'disable-compression': t.boolean,
  extensions,
});

const user = t.partial({
  'client-certificate': t.string,
  'client-certificate-data': t.string,
  'client-key': t.string,
  'client-key-data': t.string,
  token: t.string,
  tokenFile: t.string,
  as: t.string,
  'as-uid': t.string,
  'as-groups': t.array(t.string),
  'as-user-extra': t.record(t.string, t.array(t.string)),
  username: t.string,
  password: t.string,
  'auth-provider': t.UnknownRecord,
  exec: t.UnknownRecord,
  extensions,
});

const context = t.intersection([
  t.type({ cluster: t.string, user: t.string }),
  t.partial({ namespace: t.string, extensions }),
]);

export const KubeconfigCodec = t.partial(
  {
    apiVersion: t.string,
    kind: t.string,
    preferences: t.UnknownRecord,
    clusters: t.array(t.type({ name: t.string, cluster })),
    users: t.array(t.type({ name: t.string, user })),
    contexts: t.array(t.type({ name: t.string, context })),
    'current-context': t.string,
    extensions,
  },
  'Kubeconfig',
);

export type KubeconfigCluster = t.TypeOf<typeof cluster>;
export type KubeconfigUser = t.TypeOf<typeof user>;
export type KubeconfigContext = t.TypeOf<typeof context>;

/** One decoded kubeconfig document, every entry keeping the directory it was read from. */
export interface KubeconfigDoc {
  readonly clusters: readonly { name: string; cluster: KubeconfigCluster; dir?: string }[];
  readonly users: readonly { name: string; user: KubeconfigUser; dir?: string }[];
  readonly contexts: readonly { name: string; context: KubeconfigContext }[];
  readonly currentContext?: string | undefined;
}
