/**
 * Mail transport port (planned; no configuration requires one yet): sends one plain-text email,
 * such as an invitation's link. Until an adapter exists, the CLI and the API hand the link to the
 * person who invites, who passes it on themselves.
 * The guarantees an adapter gives are on `MailTransport` (what an editor shows on hover).
 */
export interface MailMessage {
  /** One address, already normalized by the caller. */
  to: string;
  subject: string;
  /** Plain text; the body of an invitation holds its one-time link. */
  text: string;
}

/**
 * Sends one plain-text email.
 *
 * An adapter must guarantee:
 * - It resolves only once the message is accepted for delivery (by the relay or provider), and
 *   rejects otherwise, so the caller can say the invitation was not sent and show the link instead.
 * - It sends exactly the given recipient, subject and text: no tracking links or pixels rewrite a
 *   one-time link (a rewritten link would be fetched, and so used, by the tracker).
 * - It never logs the text: it carries a link that signs someone in.
 */
export interface MailTransport {
  send(message: MailMessage): Promise<void>;
}
