export function Tokens() {
  return (
    <main class="page" id="main">
      <h1>Tokens</h1>
    </main>
  );
}
