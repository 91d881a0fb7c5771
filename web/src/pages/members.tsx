import { type FormEvent, useState } from 'react';
import { createInvitation, listInvitations, listMembers, removeMember, revokeInvitation } from '../api/client.ts';
import type { CreatedInvitation, Invitation, Member, Role } from '../api/types.ts';
import { useSession } from '../session.tsx';
import { EmailField } from '../ui/account-fields.tsx';
import {
  ActionsHeader,
  Badge,
  Card,
  Empty,
  ErrorMessage,
  errorFor,
  Loading,
  PageHeader,
  SecretOnce,
  SelectField,
  TableWrap,
} from '../ui/components.tsx';
import { ConfirmActionDialog, useConfirmedAction } from '../ui/confirmed-action.tsx';
import { formatDate } from '../ui/format.ts';
import { useAction, useLoad, useTitle } from '../ui/hooks.ts';

export default function MembersPage() {
  useTitle('Members');
  const session = useSession();
  const owner = session.account.role === 'owner';
  const members = useLoad(listMembers, []);
  const invitations = useLoad(async () => (owner ? listInvitations() : { invitations: [] }), [owner]);
  const remove = useConfirmedAction((member: Member) => removeMember(member.user_id));
  const revoke = useConfirmedAction((invitation: Invitation) => revokeInvitation(invitation.id));

  return (
    <>
      <PageHeader
        title="Members"
        description={`The people of ${session.account.name}. Owners manage members, invitations and account settings; members do everything else.`}
      />
      {owner ? (
        <InviteCard onInvited={invitations.reload} />
      ) : (
        <div className="alert alert-info" role="status">
          Only an owner of the account can invite or remove members.
        </div>
      )}
      <Card title="Members">
        <ErrorMessage error={members.error} />
        {members.loading && !members.data ? (
          <Loading what="Loading members" />
        ) : (
          <TableWrap label="Members">
            <table>
              <thead>
                <tr>
                  <th scope="col">Email</th>
                  <th scope="col">Role</th>
                  <th scope="col">Joined</th>
                  {owner && <ActionsHeader />}
                </tr>
              </thead>
              <tbody>
                {(members.data?.members ?? []).map((member) => (
                  <tr key={member.user_id}>
                    <td>
                      {member.email}
                      {member.user_id === session.user.id && <span className="muted"> (you)</span>}
                    </td>
                    <td>
                      <Badge>{member.role}</Badge>
                    </td>
                    <td>{formatDate(member.joined_at)}</td>
                    {owner && (
                      <td className="actions">
                        <button
                          type="button"
                          className="button button-danger-quiet button-small"
                          onClick={() => remove.ask(member)}
                        >
                          Remove<span className="visually-hidden"> {member.email}</span>
                        </button>
                      </td>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        )}
      </Card>
      {owner && (
        <Card title="Open invitations">
          <ErrorMessage error={invitations.error} />
          {(invitations.data?.invitations ?? []).length === 0 ? (
            <Empty>No open invitations.</Empty>
          ) : (
            <TableWrap label="Open invitations">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Email</th>
                    <th scope="col">Role</th>
                    <th scope="col">Sent</th>
                    <th scope="col">Expires</th>
                    <ActionsHeader />
                  </tr>
                </thead>
                <tbody>
                  {invitations.data?.invitations.map((invitation) => (
                    <tr key={invitation.id}>
                      <td>{invitation.email}</td>
                      <td>
                        <Badge>{invitation.role}</Badge>
                      </td>
                      <td>{formatDate(invitation.created_at)}</td>
                      <td>{formatDate(invitation.expires_at)}</td>
                      <td className="actions">
                        <button
                          type="button"
                          className="button button-danger-quiet button-small"
                          onClick={() => revoke.ask(invitation)}
                        >
                          Revoke<span className="visually-hidden"> the invitation of {invitation.email}</span>
                        </button>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableWrap>
          )}
        </Card>
      )}
      <ConfirmActionDialog
        action={remove}
        title="Remove this member?"
        confirmLabel="Remove member"
        danger
        onDone={members.reload}
      >
        {(member) => (
          <p>
            <strong>{member.email}</strong> loses access to {session.account.name} at once. The account's keys keep working.
          </p>
        )}
      </ConfirmActionDialog>
      <ConfirmActionDialog
        action={revoke}
        title="Revoke this invitation?"
        confirmLabel="Revoke invitation"
        danger
        onDone={invitations.reload}
      >
        {(invitation) => <p>The link sent to {invitation.email} stops working.</p>}
      </ConfirmActionDialog>
    </>
  );
}

function InviteCard({ onInvited }: { onInvited: () => void }) {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('member');
  const [created, setCreated] = useState<CreatedInvitation | undefined>();
  const invite = useAction(createInvitation);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const invitation = await invite.run({ email: email.trim(), role });
    if (!invitation) return;
    setCreated(invitation);
    setEmail('');
    onInvited();
  };
  return (
    <Card title="Invite someone">
      <form onSubmit={submit} noValidate className="form">
        <ErrorMessage error={invite.error} fields={['email', 'role']} />
        <div className="form-grid">
          <EmailField value={email} onValue={setEmail} error={invite.error} />
          <SelectField
            label="Role"
            name="role"
            value={role}
            onChange={(event) => setRole(event.target.value as Role)}
            error={errorFor(invite.error, 'role')}
          >
            <option value="member">member</option>
            <option value="owner">owner</option>
          </SelectField>
        </div>
        <div>
          <button type="submit" className="button button-primary" disabled={invite.busy}>
            {invite.busy ? 'Inviting…' : 'Create invitation link'}
          </button>
        </div>
      </form>
      {created && (
        <div className="invite-result">
          <SecretOnce
            label={`Invitation link for ${created.email} (${created.role})`}
            value={created.link}
            warning={`Send this link to ${created.email} yourself: it is shown only once and works until ${formatDate(created.expires_at)}.`}
          />
        </div>
      )}
    </Card>
  );
}
