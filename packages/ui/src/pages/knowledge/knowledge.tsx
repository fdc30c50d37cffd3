export function Knowledge() {
  return (
    <main class="page" id="main">
      <h1>Knowledge</h1>
    </main>
  );
}
