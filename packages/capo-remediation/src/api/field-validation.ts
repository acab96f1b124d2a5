// How a decode treats fields the schema does not declare, named after the apiserver's
// fieldValidation parameter. Strict (the default) for what a person wrote (YAML in a repository,
// a tool's input): a misspelt field is an error naming it, never silently dropped. Ignore for
// objects read back from the apiserver, which has already pruned them against the CRD it
// serves; a newer CRD's fields must not make an older controller refuse the object.
import * as E from 'fp-ts/lib/Either.js';
import type * as t from 'io-ts';
import { formatErrors, strict } from '@noderepair/core/codec';
import { API_VERSION } from './group-version.js';

/**
 * How a decode treats undeclared fields, as the API server's fieldValidation: Strict makes them
 * errors naming the field (for what a person wrote), Ignore drops them (for objects read back
 * from the API server).
 */
export type FieldValidation = 'Strict' | 'Ignore';

/** Options of the decode functions of this package's kinds. */
export interface DecodeOptions {
  /** Default Strict: unknown fields are errors. Ignore: they are dropped (structural pruning). */
  readonly fieldValidation?: FieldValidation;
}

/** The decode function of one kind: `invalid <apiVersion> <Kind>: object.a.b: ...`. */
export function kindDecoder<A>(
  kind: string,
  codec: t.Type<A, unknown, unknown>,
): (u: unknown, opts?: DecodeOptions) => E.Either<string, A> {
  const strictCodec = strict(codec);
  return (u, opts = {}) => {
    const r = (opts.fieldValidation === 'Ignore' ? codec : strictCodec).decode(u);
    return E.isLeft(r)
      ? E.left(`invalid ${API_VERSION} ${kind}: ${formatErrors(r.left, 'object').join('; ')}`)
      : E.right(r.right);
  };
}
