/**
 * @module knowledge/remote-sources/kind
 * What a kind of remote source declares: its type, its other spellings, and entry -> source.
 *
 * Each kind's file declares itself with `defineRemoteSource` next to its class, and list.ts names
 * the declarations; registry.ts finds a kind by type or alias, and names the kinds in its
 * messages, from that list. This module knows no kind, so no kind imports the list.
 */
import type { EntryReader } from './entry-reader.js';
import type { RemoteSource, RemoteSourceType } from './remote-source.js';

/** A kind as its file declares it to the list (see defineRemoteSource). */
export interface RemoteSourceKind<T extends RemoteSourceType = RemoteSourceType> {
  /** As agno spells it; an entry's `type` must be exactly this, or one of the aliases. */
  readonly type: T;
  /** Other spellings an entry's `type` may use, lower-case; the entry's type is lower-cased to match them. */
  readonly aliases: readonly string[];
  /**
   * The source a settings entry describes: its snake_case fields, read through the reader,
   * mapped to the class's options. The order of the reads is the order of the refusals: a bad
   * entry is refused for the first field read that is wrong. Fields not read are refused after.
   */
  readonly fromSettings: (entry: EntryReader) => RemoteSource & { readonly type: T };
}

/**
 * The list's type: one declaration per type of `Types`, in its order. list.ts declares its list
 * `satisfies RemoteSourceKinds<typeof REMOTE_SOURCE_TYPES>`, so a kind missing from either, or
 * out of order, fails the build.
 */
export type RemoteSourceKinds<Types extends readonly RemoteSourceType[]> = { readonly [I in keyof Types]: RemoteSourceKind<Types[I]> };

/**
 * Declares a kind for list.ts; `aliases` default to none. The types check that `type` is one of
 * REMOTE_SOURCE_TYPES and that `fromSettings` makes a source of that type.
 */
export function defineRemoteSource<const T extends RemoteSourceType>(kind: {
  readonly type: T;
  readonly aliases?: readonly string[];
  // NoInfer: the type comes from `type` alone, so a source of another type is an error here.
  readonly fromSettings: (entry: EntryReader) => RemoteSource & { readonly type: NoInfer<T> };
}): RemoteSourceKind<T> {
  return { ...kind, aliases: kind.aliases ?? [] };
}
