import { Type } from 'typebox';
import { Account } from '../accounts/schemas.ts';
import { StringEnum } from '../http/schemas.ts';
import { plans } from '../limits/plans.ts';

export const Role = StringEnum(['owner', 'member'] as const);

const Email = Type.String({ format: 'email', maxLength: 254 });
const Password = Type.String({ minLength: 10, maxLength: 200 });

export const Session = Type.Object({
  user: Type.Object({ id: Type.String(), email: Type.String(), operator: Type.Boolean() }),
  account: Type.Union([
    Type.Object({
      id: Type.String(),
      name: Type.String(),
      plan: StringEnum(plans),
      role: Role,
      limits: Account.properties.limits,
    }),
    Type.Null(),
  ]),
  accounts: Type.Array(Type.Object({ id: Type.String(), name: Type.String(), role: Role })),
  csrf_token: Type.String(),
});

export const SignInBody = Type.Object(
  { email: Type.String({ minLength: 1, maxLength: 254 }), password: Type.String({ minLength: 1, maxLength: 200 }) },
  { additionalProperties: false },
);

export const SignUpBody = Type.Object(
  {
    email: Email,
    password: Password,
    account_name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    invitation: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  },
  { additionalProperties: false },
);

/** A sign-up or an invitation acceptance waiting for the link mailed to `email`. */
export const VerificationSent = Type.Object({ email: Type.String() });

export const SwitchAccountBody = Type.Object(
  { account_id: Type.String({ minLength: 1, maxLength: 100 }) },
  { additionalProperties: false },
);

export const ResetRequestBody = Type.Object(
  { email: Type.String({ minLength: 1, maxLength: 254 }) },
  { additionalProperties: false },
);

export const ResetConfirmBody = Type.Object(
  { token: Type.String({ minLength: 1, maxLength: 200 }), password: Password },
  { additionalProperties: false },
);

export const InvitationBody = Type.Object({ email: Email, role: Role }, { additionalProperties: false });

export const TokenBody = Type.Object({ token: Type.String({ minLength: 1, maxLength: 200 }) }, { additionalProperties: false });

export const Invitation = Type.Object({
  id: Type.String(),
  email: Type.String(),
  role: Role,
  created_at: Type.String({ format: 'date-time' }),
  expires_at: Type.String({ format: 'date-time' }),
});

export const CreatedInvitation = Type.Object({
  id: Type.String(),
  email: Type.String(),
  role: Role,
  link: Type.String(),
  expires_at: Type.String({ format: 'date-time' }),
});

export const Member = Type.Object({
  user_id: Type.String(),
  email: Type.String(),
  role: Role,
  joined_at: Type.String({ format: 'date-time' }),
});

export const UserIdParams = Type.Object({ user_id: Type.String({ minLength: 1, maxLength: 100 }) });
