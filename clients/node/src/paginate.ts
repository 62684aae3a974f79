/**
 * Every item of a list, page after page: asks for the first page, then for the one after the
 * last id seen (`starting_after`) while `has_more` is true. Pages are fetched lazily, so
 * `break`ing out of a `for await` stops asking.
 */
export async function* paginate<Item extends { id: string }>(
  fetchPage: (startingAfter: string | undefined) => Promise<{ data: Item[]; has_more: boolean }>,
): AsyncGenerator<Item, void, undefined> {
  let startingAfter: string | undefined;
  for (;;) {
    const page = await fetchPage(startingAfter);
    yield* page.data;
    const last = page.data.at(-1);
    if (!page.has_more || last === undefined) return;
    startingAfter = last.id;
  }
}
