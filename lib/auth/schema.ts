import { z } from "zod";

/** Emails are compared lower-cased and trimmed everywhere (sign-in, user creation, OIDC matching). */
export const emailField = z
  .string({ error: "Enter an email address." })
  .trim()
  .toLowerCase()
  .pipe(
    z.email({ error: "Enter an email address like name@example.com." }).max(254, { error: "At most 254 characters." }),
  );

/** Where to go after signing in: a path on this site only, never `//evil.example` or an absolute URL. */
export const nextPath = z
  .string()
  .max(2000)
  .regex(/^\/(?![/\\])[^\s]*$/, "must be a path on this site")
  .optional()
  .catch(undefined);

export const signInInput = z.object({
  email: emailField,
  // Passwords are not trimmed: a space is a character like any other.
  password: z
    .string({ error: "Enter your password." })
    .min(1, { error: "Enter your password." })
    .max(1024, { error: "At most 1024 characters." }),
  next: nextPath,
});
export type SignInInput = z.infer<typeof signInInput>;

/** State of the sign-in form between submissions (useActionState). The password is never sent back. */
export type SignInState = {
  error?: string;
  fieldErrors?: Partial<Record<"email" | "password", string[]>>;
  email?: string;
};

/**
 * Bounds of the failed sign-in rate limit: `failures` per email, or `failuresPerAddress` from one client address
 * across emails (password spraying), within the window refuse further tries from that email or address.
 */
export const SIGN_IN_LIMIT = { failures: 5, failuresPerAddress: 20, windowMinutes: 15 } as const;

export const WRONG_CREDENTIALS = "Email or password is wrong.";
