import { useState } from 'react';
import { listWebhooks } from '../api/client.ts';
import type { WebhookStatus } from '../api/types.ts';
import { Link } from '../router.tsx';
import { Badge, Card, Empty, ErrorMessage, Loading, PageHeader, Pager, SelectField, TableWrap } from '../ui/components.tsx';
import { formatDate } from '../ui/format.ts';
import { useLoad, useTitle } from '../ui/hooks.ts';
import { listPageSize } from '../ui/lists.ts';
import { eventTypes } from './webhook-types.ts';

const limit = listPageSize;

export default function WebhooksPage() {
  useTitle('Webhooks');
  const [page, setPage] = useState(1);
  const [status, setStatus] = useState<WebhookStatus | ''>('');
  const webhooks = useLoad(() => listWebhooks({ page, limit, status: status || undefined }), [page, status]);
  const list = webhooks.data?.webhooks ?? [];

  return (
    <>
      <PageHeader
        title="Webhooks"
        description="Signed HTTP notifications for chain events: transfers, logs, mined transactions, new blocks."
        actions={
          <Link to="/webhooks/new" className="button button-primary">
            Create webhook
          </Link>
        }
      />
      <Card
        title="Your webhooks"
        actions={
          <SelectField
            label="Status"
            className="inline-field"
            value={status}
            onChange={(event) => {
              setStatus(event.target.value as WebhookStatus | '');
              setPage(1);
            }}
          >
            <option value="">any</option>
            <option value="active">active</option>
            <option value="paused">paused</option>
            <option value="disabled">disabled</option>
          </SelectField>
        }
      >
        <ErrorMessage error={webhooks.error} />
        {webhooks.loading && !webhooks.data ? (
          <Loading what="Loading webhooks" />
        ) : list.length === 0 ? (
          <Empty>No webhooks{status ? ` that are ${status}` : ''} yet.</Empty>
        ) : (
          <TableWrap label="Webhooks">
            <table>
              <thead>
                <tr>
                  <th scope="col">Endpoint</th>
                  <th scope="col">Event type</th>
                  <th scope="col">Chain</th>
                  <th scope="col">Status</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {list.map((webhook) => (
                  <tr key={webhook.id}>
                    <td>
                      <Link to={`/webhooks/${encodeURIComponent(webhook.id)}`}>{webhook.url}</Link>
                      <div className="muted mono">{webhook.id}</div>
                    </td>
                    <td>{eventTypes[webhook.event_type]?.label ?? webhook.event_type}</td>
                    <td>{webhook.chain}</td>
                    <td>
                      <Badge>{webhook.status}</Badge>
                    </td>
                    <td>{formatDate(webhook.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        )}
        {webhooks.data && <Pager page={page} limit={limit} total={webhooks.data.total} onPage={setPage} />}
      </Card>
    </>
  );
}
