export default function ContactsPage() {
  return <div>ContactsPage</div>;
}
