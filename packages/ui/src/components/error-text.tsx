/** A failure, announced to screen readers as it appears. */
export function ErrorText({ message }: { message: string | undefined }) {
  if (!message) return null;
  return (
    <p class="error" role="alert">
      {message}
    </p>
  );
}
