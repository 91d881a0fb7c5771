import { useState } from 'react';
import { listKeyEvents, listMembers } from '../api/client.ts';
import { useSession } from '../session.tsx';
import { Badge, Card, Empty, ErrorMessage, Loading, Pager, TableWrap } from '../ui/components.tsx';
import { formatDate } from '../ui/format.ts';
import { useLoad } from '../ui/hooks.ts';
import { actionLabels, actionTones, actorInWords, detailsInWords } from './key-event-words.ts';

const pageSize = 20;

/** The key's audit trail, newest first: what was done, by whom, when. `round` changes whenever the page re-reads the key. */
export function KeyEvents({ keyId, round }: { keyId: string; round: unknown }) {
  const session = useSession();
  const [page, setPage] = useState(1);
  const events = useLoad(() => listKeyEvents(keyId, { page, limit: pageSize }), [keyId, page, round]);
  // Members' emails name who did what; a member who cannot list members still sees ids.
  const members = useLoad(() => listMembers().catch(() => ({ members: [] })), []);
  const emails = new Map((members.data?.members ?? []).map((member) => [member.user_id, member.email]));
  const list = events.data?.events ?? [];

  return (
    <Card title="Events" actions={<span className="muted">Every change to this key, with who made it</span>}>
      <ErrorMessage error={events.error} />
      {events.loading && !events.data ? (
        <Loading what="Loading the events" />
      ) : list.length === 0 ? (
        !events.error && <Empty>No events recorded for this key.</Empty>
      ) : (
        <TableWrap label="Key events">
          <table>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Action</th>
                <th scope="col">Who</th>
                <th scope="col">Details</th>
              </tr>
            </thead>
            <tbody>
              {list.map((event) => (
                <tr key={event.id}>
                  <td className="nowrap">{formatDate(event.created_at)}</td>
                  <td>
                    <Badge tone={actionTones[event.action]}>{actionLabels[event.action] ?? event.action}</Badge>
                  </td>
                  <td>{actorInWords(event.actor, session.user, emails)}</td>
                  <td className="key-event-details">{detailsInWords(event.action, event.details).join('; ') || '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
      <Pager page={page} limit={pageSize} total={events.data?.total ?? 0} onPage={setPage} />
    </Card>
  );
}
