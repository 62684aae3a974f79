import * as v from 'valibot';

declare global {
  interface String {
    /** ES2024 (Node 20 has it; the project's TypeScript lib is ES2023). */
    isWellFormed(): boolean;
  }
}

/**
 * Text every database stores and gives back unchanged: Postgres refuses U+0000 in text, and a lone
 * surrogate has no UTF-8 form (it would be stored as U+FFFD).
 */
export const isStorableText = (text: string) => !text.includes('\u0000') && text.isWellFormed();

/** The offending characters written as `\u0000`, `\ud800`, so a message or `param` naming them stays printable. */
export const escapeUnstorable = (text: string) =>
  text.replace(
    // biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is one of the characters it escapes.
    /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );

/** Characters as people count them (Unicode code points), not UTF-16 code units: an emoji is one. */
export function characterCount(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/**
 * A length limit in characters. Text no longer than `max` code units is within it and text longer
 * than `2 × max` is beyond it (a character is one or two units) without counting, so a 12 MB string
 * is not walked on the event loop.
 */
export const maxCharacters = (max: number, message: string) =>
  // Tagged with its limit so the OpenAPI document can say `maxLength`, which counts code points too.
  Object.assign(
    v.check<string, string>(
      (text) => text.length <= max || (text.length <= 2 * max && characterCount(text) <= max),
      message,
    ),
    { maxCharacters: max },
  );

/** Ids this service issues are a prefix and 24 base62 characters; 64 leaves room for any prefix. */
/** `'a', 'b' or 'c'`: a picklist's options in its error message, from the list the picklist takes. */
export const choices = (options: readonly string[]) =>
  options.length < 2
    ? options.map((option) => `'${option}'`).join('')
    : `${options
        .slice(0, -1)
        .map((option) => `'${option}'`)
        .join(', ')} or '${options.at(-1)}'`;

export const maxIdLength = 64;

/** Whether `text` could be an id at all; what cannot is unknown without asking the database. */
export const couldBeId = (text: string) => text.length > 0 && text.length <= maxIdLength && isStorableText(text);
