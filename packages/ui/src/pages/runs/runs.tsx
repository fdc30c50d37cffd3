export function Runs() {
  return (
    <main class="page" id="main">
      <h1>Runs</h1>
    </main>
  );
}
