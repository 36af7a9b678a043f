import type { operations } from '../spec/admin-types.js';

/**
 * Request and response types of each control API operation, read off the types generated
 * from server/admin.openapi.yaml (`npm run gen:types`): nothing here restates a field.
 */
export type ControlOperationId = keyof operations;

type Params<K extends ControlOperationId> = operations[K]['parameters'];
type IsNever<T> = [T] extends [never] ? true : false;
type JsonOf<T> = T extends { content: { 'application/json': infer B } } ? B : never;

/** Path parameters of an operation, or never when it has none. */
export type ControlPath<K extends ControlOperationId> = Exclude<Params<K>['path'], undefined>;
/** Query parameters of an operation, or never when it has none. */
export type ControlQuery<K extends ControlOperationId> = Exclude<Params<K>['query'], undefined>;
/** The JSON request body of an operation, or never when it takes none. */
export type ControlBody<K extends ControlOperationId> = JsonOf<
  Exclude<operations[K]['requestBody'], undefined>
>;

type SuccessStatus = 200 | 201 | 202 | 204;
type Responses<K extends ControlOperationId> = operations[K]['responses'];
/** The body a successful answer carries: JSON parsed, other media as text, 204 undefined. */
export type ControlResult<K extends ControlOperationId> = {
  [S in keyof Responses<K>]: S extends SuccessStatus ? Content<Responses<K>[S]> : never;
}[keyof Responses<K>];
type Content<R> = R extends { content: infer C }
  ? C extends { 'application/json': infer B }
    ? B
    : string
  : undefined;

type PathPart<K extends ControlOperationId> =
  IsNever<ControlPath<K>> extends true ? { path?: never } : { path: ControlPath<K> };
type QueryPart<K extends ControlOperationId> =
  IsNever<ControlQuery<K>> extends true ? { query?: never } : { query?: ControlQuery<K> };
type BodyPart<K extends ControlOperationId> =
  IsNever<ControlBody<K>> extends true
    ? { body?: never }
    : undefined extends operations[K]['requestBody']
      ? { body?: ControlBody<K> }
      : { body: ControlBody<K> };

/** What `call(operationId, input)` takes: path, query and body as the document declares them. */
export type ControlInput<K extends ControlOperationId> = PathPart<K> & QueryPart<K> & BodyPart<K>;

/** True when an operation can be called with no input at all. */
type InputOptional<K extends ControlOperationId> = object extends ControlInput<K> ? true : false;

/** The arguments of `call`: the input may be left out when nothing in it is required. */
export type ControlArgs<K extends ControlOperationId> =
  InputOptional<K> extends true ? [input?: ControlInput<K>] : [input: ControlInput<K>];
