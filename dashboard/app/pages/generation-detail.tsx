import { Fragment } from 'preact';
import { api, baseUrl, unwrap, type Generation } from '../api.ts';
import { EventDeliveries } from '../components/event-deliveries.tsx';
import { useNotify } from '../components/notices.tsx';
import {
  ConfirmButton,
  ErrorText,
  GeneratedImage,
  PageTitle,
  StatusBadge,
  Time,
  ScrollTable,
  useAction,
} from '../components/ui.tsx';
import { useLoad } from '../hooks.ts';
import { creditsFor, modeLabel, productNames } from '../labels.ts';
import { href, navigate } from '../router.ts';
import { useIsAdmin } from '../session.ts';

/**
 * Admins: deletes the generation with its images and uploaded photo (a processing one is
 * discarded and refunded), then goes back to the list.
 */
function DeleteGeneration({ id, status }: { id: string; status: Generation['status'] }) {
  const remove = useAction();
  const notify = useNotify();
  return (
    <section aria-labelledby="delete-heading">
      <h2 id="delete-heading">Delete</h2>
      <p class="muted">
        Deletes the images (the original and every variant) and the uploaded photo for good; their URLs stop working.{' '}
        {status === 'processing'
          ? 'The render in progress is discarded and its credits are refunded.'
          : status === 'failed'
            ? 'Its credits were already refunded when it failed.'
            : 'Credits are not refunded.'}
      </p>
      <ConfirmButton
        label="Delete generation"
        confirmLabel={`Delete ${id} for good`}
        onConfirm={() =>
          remove.run(async () => {
            await unwrap(api.DELETE('/v1/generations/{id}', { params: { path: { id } } }));
            notify(`Generation ${id} deleted.`);
            navigate('/generations');
          })
        }
      />
      <ErrorText error={remove.error} />
    </section>
  );
}

/**
 * The engine that rendered it, from the dashboard's own route: which vendor rendered is not part
 * of the API's Generation resource. Null when none did yet, or the answer failed.
 */
async function renderEngineOf(id: string): Promise<string | null> {
  const response = await fetch(`${baseUrl}/dashboard/generations/${encodeURIComponent(id)}/engine`, {
    credentials: 'same-origin',
  });
  if (response.status !== 200) return null;
  return (await response.text()) || null;
}

/**
 * The image once, large (the `detail` variant), then every size as a link: the three variants are
 * the same picture scaled, so showing each would only repeat it. A failed generation says why, and
 * that it made no image and gave its credits back (the service refunds every failed render).
 */
function GenerationImages({ generation }: { generation: Generation }) {
  if (generation.status === 'failed') {
    const credits = creditsFor(generation.imageSize);
    return (
      <section aria-labelledby="images-heading" class="generation-failed">
        <h2 id="images-heading">This generation failed</h2>
        <p>
          {generation.error ? (
            <>
              {generation.error.message}{' '}
              <span class="muted">
                (<code>{generation.error.code}</code>)
              </span>
            </>
          ) : (
            'The service recorded no reason.'
          )}
        </p>
        <p>
          No image was made, and its {credits} {credits === 1 ? 'credit was' : 'credits were'} refunded (see{' '}
          <a href={href('/credits')}>Credits</a>). Fix the cause and create a new generation.
        </p>
      </section>
    );
  }
  const variants = generation.imageVariants;
  return (
    <section aria-labelledby="images-heading">
      <h2 id="images-heading">Image</h2>
      {!generation.imageUrl || !variants ? (
        <p class="muted">No image yet: it is still rendering. This page shows it once the generation completes.</p>
      ) : (
        <>
          <div class="generation-image">
            <GeneratedImage
              src={variants.detail.url}
              width={variants.detail.width}
              alt={`The generated image of ${productNames(generation)}`}
            />
          </div>
          <p class="image-sizes">
            Sizes:{' '}
            {(['list', 'card', 'detail'] as const).map((name) => (
              <Fragment key={name}>
                <a href={variants[name].url}>
                  {name} ({variants[name].width} px)
                </a>
                {' · '}
              </Fragment>
            ))}
            <a href={generation.imageUrl}>original (full size)</a>
          </p>
        </>
      )}
    </section>
  );
}

/** One generation: every image variant, its products, hint, metadata, error, the engine that rendered it, and its events' deliveries. */
export function GenerationDetailPage({ id }: { id: string }) {
  const generation = useLoad(() => unwrap(api.GET('/v1/generations/{id}', { params: { path: { id } } })), id);
  const events = useLoad(
    () => unwrap(api.GET('/v1/events', { params: { query: { generationId: id, limit: 10 } } })),
    id,
  );
  const engine = useLoad(() => renderEngineOf(id), id);
  const admin = useIsAdmin();
  const value = generation.value;
  return (
    <>
      <p>
        <a href={href('/generations')}>← All generations</a>
      </p>
      <PageTitle>Generation {id}</PageTitle>
      {value && (
        <p class="lead">
          {modeLabel(value.mode)} of <strong>{productNames(value)}</strong>
        </p>
      )}
      <ErrorText error={generation.error} />
      {value && (
        <>
          <dl class="facts">
            <dt>Status</dt>
            <dd>
              <StatusBadge status={value.status} />
            </dd>
            <dt>Mode</dt>
            <dd>{modeLabel(value.mode)}</dd>
            <dt>Image size</dt>
            <dd>{value.imageSize}</dd>
            <dt>Created</dt>
            <dd>
              <Time iso={value.createdAt} />
            </dd>
            <dt>Completed</dt>
            <dd>
              <Time iso={value.completedAt} />
            </dd>
            <dt>Hint</dt>
            <dd>{value.hint ?? '—'}</dd>
            <dt>Rendered by</dt>
            <dd>{engine.value ? <code>{engine.value}</code> : '—'}</dd>
          </dl>
          <GenerationImages generation={value} />
          <section aria-labelledby="products-heading">
            <h2 id="products-heading">Products</h2>
            <ScrollTable label="Products table">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Product</th>
                    <th scope="col">Id</th>
                    <th scope="col">Image</th>
                    <th scope="col">Dimensions</th>
                  </tr>
                </thead>
                <tbody>
                  {value.products.map((product) => (
                    <tr key={String(product.productId)}>
                      <th scope="row">
                        {product.productUrl ? (
                          <a href={product.productUrl}>{product.productTitle}</a>
                        ) : (
                          product.productTitle
                        )}
                      </th>
                      <td>
                        <code>{String(product.productId)}</code>
                      </td>
                      <td>
                        <a href={product.imageUrl}>image</a>
                      </td>
                      <td>
                        {product.dimensions
                          ? `${[product.dimensions.width, product.dimensions.height, product.dimensions.depth].filter((n) => n !== undefined).join(' × ')} ${product.dimensions.unit ?? 'cm'}`
                          : '—'}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </ScrollTable>
          </section>
          <section aria-labelledby="metadata-heading">
            <h2 id="metadata-heading">Metadata</h2>
            {value.metadata && Object.keys(value.metadata).length ? (
              <dl class="facts">
                {Object.entries(value.metadata).map(([name, text]) => (
                  <Fragment key={name}>
                    <dt>{name}</dt>
                    <dd>{text}</dd>
                  </Fragment>
                ))}
              </dl>
            ) : (
              <p class="muted">
                None. A server attaches its own keys (an order id, say) with <code>metadata</code> on{' '}
                <code>POST /v1/generations</code>: see the <a href="../docs">API reference</a>.
              </p>
            )}
          </section>
          {admin && <DeleteGeneration id={id} status={value.status} />}
        </>
      )}
      <section aria-labelledby="events-heading">
        <h2 id="events-heading">Webhook events</h2>
        <ErrorText error={events.error} />
        {events.value && events.value.data.length === 0 && (
          <p class="muted">
            No events yet: one is made when the generation completes or fails, and delivered to every webhook endpoint
            subscribed to it. Add an endpoint on the <a href={href('/developers')}>Developers</a> page.
          </p>
        )}
        {events.value?.data.map((event) => (
          <article key={event.id} class="event">
            <h3>
              {event.type} <code>{event.id}</code> — <Time iso={event.createdAt} />
            </h3>
            <EventDeliveries eventId={event.id} />
          </article>
        ))}
      </section>
    </>
  );
}
