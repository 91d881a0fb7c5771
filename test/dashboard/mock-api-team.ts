// The mock dashboard API's team (mock-api.ts): the account's members and invitations.
import { type AreaRoutes, day, iso, json } from './mock-api-support.ts';

/** GET /members; GET and POST /invitations. */
export const teamRoutes: AreaRoutes = ({ route, key, body }) => {
  switch (true) {
    case key === 'GET /members':
      return json(route, 200, {
        members: [
          { user_id: 'usr_1', email: 'ada@example.com', role: 'owner', joined_at: iso(60 * day) },
          { user_id: 'usr_2', email: 'grace@example.com', role: 'member', joined_at: iso(20 * day) },
        ],
      });
    case key === 'GET /invitations':
      return json(route, 200, {
        invitations: [
          { id: 'inv_1', email: 'linus@example.com', role: 'member', created_at: iso(day), expires_at: iso(-6 * day) },
        ],
      });
    case key === 'POST /invitations':
      return json(route, 201, {
        id: 'inv_2',
        email: body.email,
        role: body.role,
        link: 'http://127.0.0.1:8080/invite?token=inv_tok_5r8YcQe2Lm',
        expires_at: iso(-7 * day),
      });
    default:
      return undefined;
  }
};
